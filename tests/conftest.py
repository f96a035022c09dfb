import os, shutil
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]

def pytest_configure(config):
    os.environ.setdefault('PYTHONWARNINGS', 'ignore')

@pytest.fixture(scope='session')
def root() -> Path: return ROOT

def have_gpu() -> bool:
    try:
        import torch
        return torch.cuda.is_available()
    except Exception: return False
