"""Kernel parity on a GPU: kept-token sets of the fused filter vs the PyTorch reference at real vocabulary sizes, for
flat and peaked rows, top-p alone and all filters together. Writes OUT/parity.json (env, per-config counts).
Usage: python tools/kernel_parity.py OUT_DIR"""
import os, sys
import torch
from eagle_nb import kernels
from eagle_nb.core import env_info, write_json
from eagle_nb.sampling import apply_logit_filters

def main(out):
    kernels.get_op('filter_sample'); print(kernels.status()['filter_sample'])
    g = torch.Generator(device='cuda').manual_seed(7)
    rows, B = [], 256
    for V in (49152, 128256, 151936):
        for dt in (torch.float32, torch.bfloat16, torch.float16):
            for scale in (1.0, 4.0, 12.0):          # flat (huge nuclei) to peaked rows
                for mode in ('top_p', 'all'):
                    x = (torch.randn(B, V, device='cuda', generator=g) * scale).to(dt)
                    T = torch.rand(B, device='cuda', generator=g) * 1.5 + 0.3
                    p = torch.rand(B, device='cuda', generator=g) * 0.98 + 0.01
                    k = (torch.randint(0, 2000, (B,), device='cuda', generator=g) if mode == 'all'
                         else torch.zeros(B, dtype=torch.long, device='cuda'))
                    on = torch.rand(B, device='cuda', generator=g) < 0.5
                    mp = torch.where(on, torch.rand(B, device='cuda', generator=g) * 0.1, torch.zeros(B, device='cuda'))
                    ref = torch.isfinite(apply_logit_filters(x, T, k, p, mp))
                    got = torch.isfinite(kernels.filter_logits(x, T, k, p, mp))
                    rows.append(dict(V=V, dtype=str(dt), scale=scale, mode=mode, rows=B, differing=int((ref != got).any(1).sum())))
    tot, bad = sum(r['rows'] for r in rows), sum(r['differing'] for r in rows)
    print(f"parity: {bad} of {tot} rows differ from the reference")
    for r in rows:
        if r['differing']: print('  differs:', r)
    write_json(dict(env=env_info(), rows=rows, total_rows=tot, differing_rows=bad), os.path.join(out, 'parity.json'))

if __name__ == '__main__': main(sys.argv[1] if len(sys.argv) > 1 else '.')
