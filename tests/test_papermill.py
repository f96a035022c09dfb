"The filter benchmark runs under papermill with parameters, writes results and a plot, and resumes."
import json
import pytest
from conftest import ROOT

def test_filter_benchmark_papermill(tmp_path):
    pm = pytest.importorskip('papermill')
    out = tmp_path/'fb'
    params = dict(batch_sizes=[1, 4], vocab_sizes=[1000], dtypes=['float32'], iters=2, out_dir=str(out), device='cpu')
    pm.execute_notebook(str(ROOT/'nbs'/'benchmarks'/'bench_filters.ipynb'), str(tmp_path/'run1.ipynb'), parameters=params,
                        cwd=str(ROOT), progress_bar=False)
    res = json.loads((out/'results.json').read_text())
    ok = [r for r in res['results'].values() if r.get('status') == 'ok']
    assert {(r['method'], r['B']) for r in ok} >= {('reference', 1), ('reference', 4), ('per_row_loop', 4)}
    assert res['meta']['params']['batch_sizes'] == [1, 4] and res['meta']['torch']
    assert (out/'filter_bench.png').stat().st_size > 1000
    # the papermill 'parameters' tag survived nbdev_clean: the injected cell follows it
    nb = json.loads((tmp_path/'run1.ipynb').read_text())
    tags = [c['metadata'].get('tags', []) for c in nb['cells']]
    assert ['parameters'] in tags and ['injected-parameters'] in tags
    # a second run with the same out_dir resumes: finished configurations are not redone
    before = {k: v['us'] for k, v in res['results'].items() if v.get('status') == 'ok'}
    pm.execute_notebook(str(ROOT/'nbs'/'benchmarks'/'bench_filters.ipynb'), str(tmp_path/'run2.ipynb'), parameters=params,
                        cwd=str(ROOT), progress_bar=False)
    res2 = json.loads((out/'results.json').read_text())
    assert {k: v['us'] for k, v in res2['results'].items() if v.get('status') == 'ok'} == before
    assert len(res2['meta'].get('resumed', [])) == 1
