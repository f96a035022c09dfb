"Every notebook in nbs/ runs clean under nbdev_test (cells flagged `cuda` run only where a GPU is)."
import os, subprocess, sys
from pathlib import Path
import pytest
from conftest import ROOT, have_gpu

NBS = sorted(p for p in (ROOT/'nbs').rglob('*.ipynb') if '.ipynb_checkpoints' not in p.parts and not p.name.startswith('_'))

@pytest.mark.parametrize('nb', NBS, ids=lambda p: str(p.relative_to(ROOT/'nbs')))
def test_notebook(nb: Path):
    cmd = ['nbdev_test', '--path', str(nb), '--n_workers', '1', '--do_print']
    if have_gpu(): cmd += ['--flags', 'cuda']
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    out = r.stdout + r.stderr
    assert r.returncode == 0 and 'Success' in out, out[-6000:]

def test_every_notebook_is_tested():
    assert len(NBS) >= 12, [p.name for p in NBS]
    assert (ROOT/'nbs'/'benchmarks'/'bench_filters.ipynb') in NBS

def test_readme_is_rendered_from_index():
    import subprocess, sys
    r = subprocess.run([sys.executable, 'tools/make_readme.py', '--check'], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
