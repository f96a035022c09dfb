"""Render nbs/index.ipynb to README.md (markdown cells as they are, code cells as fenced Python).
Used instead of `nbdev_readme`, which needs Quarto. `python tools/make_readme.py --check` fails if README.md is stale."""
import json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

def render(nb_path=ROOT/'nbs'/'index.ipynb') -> str:
    nb = json.loads(Path(nb_path).read_text())
    parts = []
    for c in nb['cells']:
        src = ''.join(c['source']).strip()
        if not src or src.startswith('#| hide'): continue
        parts.append(src if c['cell_type'] == 'markdown' else f"```python\n{src}\n```")
    text = '<!-- generated from nbs/index.ipynb by tools/make_readme.py: edit the notebook -->\n\n' + '\n\n'.join(parts) + '\n'
    res = ROOT/'outputs'/'RESULTS.md'
    return text.replace('<!-- RESULTS -->', res.read_text().strip() if res.exists() else '(no results yet)')

if __name__ == '__main__':
    text = render()
    if '--check' in sys.argv:
        if (ROOT/'README.md').read_text() != text: sys.exit('README.md is stale: run python tools/make_readme.py')
    else: (ROOT/'README.md').write_text(text)
