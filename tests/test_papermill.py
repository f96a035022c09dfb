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


def test_bench_suite_cli_papermill(tmp_path):
    "`eagle-nb bench` runs the suite notebook through papermill on the real default model (CPU), then resumes."
    pytest.importorskip('papermill')
    import subprocess, sys
    names = 'baseline,eagle3_graphs_tree,eagle3_tree,batch4'
    cmd = [sys.executable, '-m', 'eagle_nb.cli', 'bench', '--run-id', 'ci', '--preset', 'quick', '--out-root', str(tmp_path),
           '--scenarios', names, '-p', 'device', 'cpu', '-p', 'max_new_tokens', '10']
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    run = tmp_path/'ci'
    recs = {n: json.loads((run/f'{n}.json').read_text()) for n in names.split(',')}
    assert recs['batch4']['status'] == 'unsupported' and 'batch size 1' in recs['batch4']['reason']
    for n in ('baseline', 'eagle3_graphs_tree', 'eagle3_tree'):
        rec = recs[n]
        assert rec['status'] == 'ok', rec.get('error')
        assert rec['parameters']['max_new_tokens'] == 10 and rec['env']['torch'] and rec['env']['commit']
        assert set(rec['summary']['throughput_tokens_per_sec']) == {'mean', 'median', 'min', 'max'}
    es = recs['eagle3_graphs_tree']['summary']
    assert es['eagle_speculation']['num_drafts'] >= 1 and es['speedup']['baseline'] > 0
    assert recs['eagle3_graphs_tree']['per_prompt'][0]['token_ids'] == recs['baseline']['per_prompt'][0]['token_ids']
    assert (run/'bench_suite.ipynb').exists() and (run/'throughput.png').stat().st_size > 1000
    assert 'eagle3_graphs_tree' in (run/'results.md').read_text()
    walls = {n: recs[n]['wall_seconds'] for n in recs}
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    assert {n: json.loads((run/f'{n}.json').read_text())['wall_seconds'] for n in names.split(',')} == walls  # nothing rerun
