"""GPU check of the static/graphed paths on a random-weight model of the default target's architecture
(SmolLM2-135M: 30 layers, hidden 576, 9 heads / 3 KV heads, vocabulary 49152), no checkpoint needed.

Checks, in fp32: graphed speculation == static uncaptured == eager baseline, token for token; graphed decoder ==
baseline. Times, in bf16: eager baseline, graphed decoder, graphed speculator (random draft: ~nothing accepted, so
this is the cost of one step, not a speedup). Prints JSON; with --out writes it."""
import argparse, json, time, sys
import torch
from transformers import LlamaConfig, LlamaForCausalLM
from eagle_nb.target import TargetModel
from eagle_nb.draft import random_draft
from eagle_nb.baseline import baseline_generate
from eagle_nb.graphs import StaticEagle3Speculator, StaticDecoder
from eagle_nb.speculative import SpeculativeConfig
from eagle_nb.core import env_info

ap = argparse.ArgumentParser(); ap.add_argument('--out'); ap.add_argument('--tokens', type=int, default=128); ap.add_argument('--compile', action='store_true')
a = ap.parse_args()
class _NoText:  # no tokenizer for a random model: empty text
    def decode(self, ids, **kw): return ''

cfg = LlamaConfig(vocab_size=49152, hidden_size=576, intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9,
                  num_key_value_heads=3, max_position_embeddings=8192, rope_theta=100000.0, tie_word_embeddings=True)
torch.manual_seed(0)
res = dict(env=env_info(), tokens=a.tokens)
prompt = torch.randint(0, 49152, (1, 40), generator=torch.Generator().manual_seed(1))
for dt in (torch.float32, torch.bfloat16):
    m = LlamaForCausalLM(cfg).to('cuda', dt).eval()
    t = TargetModel(m, capacity=1024)
    d = random_draft(m, draft_vocab_size=8192, seed=0, std=0.05)
    base = baseline_generate(t, _NoText(), prompt, a.tokens, stop_ids=[])
    g = StaticEagle3Speculator(t, d, None, SpeculativeConfig(), capacity=1024)
    s = StaticEagle3Speculator(t, d, None, SpeculativeConfig(), capacity=1024, cuda_graphs=False)
    dec = StaticDecoder(t, None, capacity=1024)
    rg, rs, rd = (x.generate(prompt, a.tokens, stop_ids=[]) for x in (g, s, dec))
    rg, rd = g.generate(prompt, a.tokens, stop_ids=[]), dec.generate(prompt, a.tokens, stop_ids=[])  # timed after capture
    first_diff = lambda x, y: next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), None)
    res[str(dt)] = dict(
        graphs_eq_static=rg.token_ids == rs.token_ids, graphs_eq_baseline=rg.token_ids == base.token_ids,
        decoder_eq_baseline=rd.token_ids == base.token_ids, first_diff_graphs_vs_baseline=first_diff(rg.token_ids, base.token_ids),
        baseline_eager_tok_s=base.tokens_per_sec, decoder_graphs_tok_s=rd.tokens_per_sec,
        spec_graphs_tok_s=rg.tokens_per_sec, spec_static_eager_tok_s=rs.tokens_per_sec,
        spec_graphs_ms_per_step=1e3 * (rg.seconds - rg.prefill_seconds) / max(1, rg.metrics['num_drafts']),
        tau_random_draft=rg.metrics['mean_acceptance_length'])
    if dt == torch.bfloat16 and a.compile:
        t0 = time.perf_counter()
        dc = StaticDecoder(t, None, capacity=1024, compile=True); dc.generate(prompt, 8, stop_ids=[])
        gc = StaticEagle3Speculator(t, d, None, SpeculativeConfig(), capacity=1024, compile=True); gc.generate(prompt, 8, stop_ids=[])
        res['compile_seconds'] = time.perf_counter() - t0
        rdc, rgc = dc.generate(prompt, a.tokens, stop_ids=[]), gc.generate(prompt, a.tokens, stop_ids=[])
        res[str(dt)].update(decoder_compiled_graphs_tok_s=rdc.tokens_per_sec, compiled_decoder_eq_decoder=rdc.token_ids == rd.token_ids,
                            spec_compiled_graphs_ms_per_step=1e3 * (rgc.seconds - rgc.prefill_seconds) / max(1, rgc.metrics['num_drafts']),
                            compiled_spec_eq_spec=rgc.token_ids == rg.token_ids)
print(json.dumps(res, indent=1, default=str))
if a.out: open(a.out, 'w').write(json.dumps(res, indent=1, default=str))
ok = res['torch.float32']['graphs_eq_static'] and res['torch.float32']['decoder_eq_baseline']
sys.exit(0 if ok else 1)
