// Fused logit filtering (temperature, top-k, top-p, min-p) and Gumbel-max sampling, one thread block per row.
//
// Semantics are those of eagle_nb.sampling.apply_logit_filters (nbs/04_sampling.ipynb): every filter keeps
// {i : z_i >= t}, so a row needs only its threshold t = max(t_k, t_p, t_min).
//
// v2 (default path): pass 1 row max; pass 2 total mass + a 256-bin value histogram below the max (bin width
// 1/8 nat; the crowded tail bin is summed in registers, not with atomics); the bin holding the top-k / top-p
// boundary bounds a small candidate set, gathered in pass 3 into shared memory, bitonic-sorted, and scanned for the
// exact thresholds; pass 4 writes and/or samples. A row whose boundary lies in the tail bin, or whose candidate set
// exceeds the shared buffer, takes the exact radix path below (v1), so results never depend on the path.
//
// v1 radix path, no sort:
//   pass 1      row max m and sum_i exp(z_i - m) (online softmax), argmax for greedy rows
//   top-k       radix select of the k-th largest value over order-preserving uint32 keys, 4 rounds of 8 bits
//   top-p       the same radix descent over *mass* histograms: the lowest key whose strictly-greater mass,
//               over the top-k survivors, is < top_p * Z_k
//   min-p       t_min = m + log(min_p)
//   last pass   write z_i or -inf, and/or argmax_i (z_i - log E_i), E_i ~ Exp(1) from Philox4x32-10 (clamped >= 1e-30)
// Ties: thresholds are values, so every token tied with the boundary value is kept (as in the reference).
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdint>
#include <type_traits>

namespace {

constexpr int BLOCK = 1024;
constexpr int NWARP = BLOCK / 32;
constexpr int NBINS = 256;  // 8-bit radix digits
constexpr float EXP_FLOOR = 1e-30f;
constexpr int CAP = 4096;          // candidate buffer (floats in shared memory)
constexpr float BIN_W = 0.125f;    // histogram bin width in nats (bins 0..254 cover 31.9 nats below the max)
constexpr int TAIL = NBINS - 1;

__device__ __forceinline__ float to_f(float x) { return x; }
__device__ __forceinline__ float to_f(double x) { return static_cast<float>(x); }
__device__ __forceinline__ float to_f(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }

// Order-preserving map float -> uint32 (-0.0 folded onto +0.0 so that equal floats get equal keys).
__device__ __forceinline__ uint32_t f2key(float f) {
  if (f == 0.f) f = 0.f;
  uint32_t u = __float_as_uint(f);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
__device__ __forceinline__ float key2f(uint32_t k) {
  uint32_t u = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
  return __uint_as_float(u);
}

// Philox4x32-10 (Salmon et al., SC'11): counter-based, so element i of row r gets the same draw on any launch shape.
__device__ __forceinline__ uint4 philox4x32_10(uint4 c, uint2 k) {
  const uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u, W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
#pragma unroll
  for (int r = 0; r < 10; ++r) {
    const uint32_t hi0 = __umulhi(M0, c.x), lo0 = M0 * c.x;
    const uint32_t hi1 = __umulhi(M1, c.z), lo1 = M1 * c.z;
    c = make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
    k.x += W0; k.y += W1;
  }
  return c;
}
// Exp(1) draw for (row, i): v = (x + 0.5) 2^-32 lies strictly inside (0, 1); -log1p(-v) is accurate near 0,
// and a v that rounds to 1 gives +inf (that token simply cannot win, probability ~2^-25).
__device__ __forceinline__ float exp1_draw(uint64_t seed, uint64_t offset, int row, int i) {
  const uint4 r = philox4x32_10(make_uint4((uint32_t)i, (uint32_t)row, (uint32_t)offset, (uint32_t)(offset >> 32)),
                                make_uint2((uint32_t)seed, (uint32_t)(seed >> 32)));
  const float v = ((float)r.x + 0.5f) * 2.3283064365386963e-10f;
  return fmaxf(-log1pf(-v), EXP_FLOOR);
}

struct MaxSum { float m; float s; };
__device__ __forceinline__ MaxSum combine(MaxSum a, MaxSum b) {
  if (a.m == -INFINITY) return b;
  if (b.m == -INFINITY) return a;
  float M = fmaxf(a.m, b.m);
  return {M, a.s * expf(a.m - M) + b.s * expf(b.m - M)};
}
struct ArgMax { float v; int i; };
__device__ __forceinline__ ArgMax better(ArgMax a, ArgMax b) {  // larger value, then lower index
  if (b.v > a.v || (b.v == a.v && b.i < a.i)) return b;
  return a;
}

template <typename T, typename Op>
__device__ T block_reduce(T v, Op op, T* sh) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int o = 16; o > 0; o >>= 1) {
    T other;
    if constexpr (sizeof(T) == 8 && !std::is_same<T, double>::value) {
      // two-field structs: shuffle field by field
      other = v;
      float* pv = reinterpret_cast<float*>(&v);
      float* po = reinterpret_cast<float*>(&other);
      po[0] = __shfl_down_sync(0xffffffffu, pv[0], o);
      po[1] = __shfl_down_sync(0xffffffffu, pv[1], o);
    } else {
      other = __shfl_down_sync(0xffffffffu, v, o);
    }
    v = op(v, other);
  }
  __syncthreads();
  if (lane == 0) sh[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = sh[lane];  // NWARP == 32
    for (int o = 16; o > 0; o >>= 1) {
      T other;
      if constexpr (sizeof(T) == 8 && !std::is_same<T, double>::value) {
        other = v;
        float* pv = reinterpret_cast<float*>(&v);
        float* po = reinterpret_cast<float*>(&other);
        po[0] = __shfl_down_sync(0xffffffffu, pv[0], o);
        po[1] = __shfl_down_sync(0xffffffffu, pv[1], o);
      } else {
        other = __shfl_down_sync(0xffffffffu, v, o);
      }
      v = op(v, other);
    }
    if (lane == 0) sh[0] = v;
  }
  __syncthreads();
  T r = sh[0];
  __syncthreads();
  return r;
}

// Warp 0 scans the 256 bins from the top. Mode COUNT: find the bin holding the `need`-th largest element
// (need >= 1), return the bin and the count above it. Mode MASS: find the lowest non-empty bin whose mass above
// (plus `above`) is < target; return the bin and the mass strictly above it.
template <bool COUNT, typename VT>
__device__ void scan_bins(const VT* hist, VT need_or_target, VT above, int* out_bin, VT* out_above) {
  const int lane = threadIdx.x & 31;
  if (threadIdx.x >= 32) return;
  // lane l owns bins [8l, 8l+8); higher lanes hold larger keys
  VT mine = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) mine += hist[lane * 8 + j];
  // inclusive suffix sum over lanes (l..31)
  VT suf = mine;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    VT v = __shfl_down_sync(0xffffffffu, suf, o);
    if (lane + o < 32) suf += v;
  }
  VT higher = suf - mine;  // total in lanes > lane
  int found = -1;
  VT found_above = 0;
  VT run = higher;  // mass/count strictly above bin b within this row range
  for (int j = 7; j >= 0; --j) {
    const int b = lane * 8 + j;
    const VT h = hist[b];
    if (COUNT) {
      if (found < 0 && run < need_or_target && run + h >= need_or_target) { found = b; found_above = run; }
    } else {
      if (h > 0 && above + run < need_or_target) { found = b; found_above = run; }  // keep the lowest
    }
    run += h;
  }
  unsigned ball = __ballot_sync(0xffffffffu, found >= 0);
  int src;
  if (COUNT) src = __ffs(ball) - 1;            // exactly one lane
  else src = ball ? (__ffs(ball) - 1) : 0;      // lowest lane holds the lowest qualifying bin
  int b = __shfl_sync(0xffffffffu, found, src);
  VT a = __shfl_sync(0xffffffffu, found_above, src);
  if (lane == 0) { *out_bin = b; *out_above = a; }
}

// Probability mass of z relative to the row max, in float64 (as the PyTorch reference computes it).
__device__ __forceinline__ double mass(float z, float m) { return exp((double)z - (double)m); }

// Histogram bin of z below the row max m (0 = within 1/8 nat of the max; TAIL = everything lower, -inf included).
// Passes 2 and 3 call this same function, so a value's bin is the same in both.
__device__ __forceinline__ int value_bin(float m, float z) {
  const float d = __fmul_rn(__fsub_rn(m, z), 1.f / BIN_W);
  return (d < (float)TAIL) ? (int)d : TAIL;  // d >= 0; NaN/inf -> TAIL
}

// Exclusive prefix sum of one value per thread across the block.
template <typename VT>
__device__ VT block_excl_scan(VT v, VT* sh) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  VT incl = v;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) { const VT t = __shfl_up_sync(0xffffffffu, incl, o); if (lane >= o) incl += t; }
  __syncthreads();
  if (lane == 31) sh[warp] = incl;
  __syncthreads();
  if (warp == 0) {
    const VT w = sh[lane];
    VT wi = w;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) { const VT t = __shfl_up_sync(0xffffffffu, wi, o); if (lane >= o) wi += t; }
    sh[lane] = wi - w;
  }
  __syncthreads();
  const VT r = incl - v + sh[warp];
  __syncthreads();
  return r;
}

template <typename scalar_t>
__global__ void __launch_bounds__(BLOCK) filter_sample_kernel(
    const scalar_t* __restrict__ logits, const float* __restrict__ temperature, const int64_t* __restrict__ top_k,
    const float* __restrict__ top_p, const float* __restrict__ min_p, float* __restrict__ out,
    int64_t* __restrict__ tokens, int V, bool write_out, bool do_sample, uint64_t seed, uint64_t offset) {
  const int row = blockIdx.x;
  const int tid = threadIdx.x;
  const scalar_t* x = logits + (int64_t)row * V;
  float* o = write_out ? out + (int64_t)row * V : nullptr;

  __shared__ float hist[NBINS];
  __shared__ MaxSum sh_ms[NWARP];
  __shared__ ArgMax sh_am[NWARP];
  __shared__ float sh_f[NWARP];
  __shared__ double sh_d[NWARP];
  __shared__ double dhist[NBINS];
  __shared__ int sh_bin;
  __shared__ float sh_above;
  __shared__ double sh_dabove;

  const float T = temperature[row];
  const bool greedy = (T == 0.f);
  const float Td = greedy ? 1.f : T;

  // ---- pass 1: max, sum exp, argmax ----
  MaxSum ms{-INFINITY, 0.f};
  ArgMax am{-INFINITY, 0x7fffffff};
  for (int i = tid; i < V; i += BLOCK) {
    const float z = to_f(x[i]) / Td;
    if (z > am.v || (z == am.v && i < am.i)) am = {z, i};
    if (z == -INFINITY) continue;
    if (z > ms.m) { ms.s = ms.s * expf(ms.m - z) + 1.f; ms.m = z; }
    else ms.s += expf(z - ms.m);
  }
  ms = block_reduce(ms, combine, sh_ms);
  am = block_reduce(am, better, sh_am);
  const float m = ms.m;

  if (greedy) {
    if (write_out)
      for (int i = tid; i < V; i += BLOCK) o[i] = (i == am.i) ? am.v : -INFINITY;
    if (do_sample && tid == 0) tokens[row] = am.i;
    return;
  }

  // ---- v2: value histogram -> small candidate set in shared memory -> exact thresholds ----
  const int64_t k = top_k[row];
  const float p = top_p[row];
  const bool k_on = (k > 0 && k < V), p_on = (p < 1.f);
  float t_k = -INFINITY, t_p = -INFINITY;
  double Zk = 0.0;  // float64 mass of the top-k survivors (all tokens when top-k is off)
  bool done = !(k_on || p_on);  // min-p alone needs no search
  if (!done) {
    __shared__ unsigned int hcnt[NBINS];
    __shared__ float cand[CAP];
    __shared__ int sh_n;
    for (int b = tid; b < NBINS; b += BLOCK) { hcnt[b] = 0u; dhist[b] = 0.0; }
    if (tid == 0) sh_n = 0;
    __syncthreads();
    // pass 2: counts and masses per bin below the max (the tail bin stays in registers: no atomics there)
    double zsum = 0.0;
    for (int i = tid; i < V; i += BLOCK) {
      const float z = to_f(x[i]) / Td;
      const int b = value_bin(m, z);
      const double w = (z == -INFINITY) ? 0.0 : mass(z, m);
      zsum += w;
      if (b < TAIL) { atomicAdd(&hcnt[b], 1u); atomicAdd(&dhist[b], w); }
    }
    Zk = block_reduce(zsum, [](double a, double b) { return a + b; }, sh_d);
    if (tid == 0) {  // the bin holding the boundary, and the candidate count down to it
      int bc = -1;
      if (k_on) {
        unsigned int c = 0;
        for (int b = 0; b < TAIL; ++b) { c += hcnt[b]; if (c >= (unsigned int)k) { bc = b; break; } }
      } else {
        const double target = (double)p * Zk;
        double c = 0.0;
        for (int b = 0; b < TAIL; ++b) { c += dhist[b]; if (c >= target) { bc = min(b + 1, TAIL - 1); break; } }
      }
      int cnt = 0;
      for (int b = 0; b <= bc; ++b) cnt += hcnt[b];
      sh_bin = (bc >= 0 && cnt <= CAP) ? bc : -1;
    }
    __syncthreads();
    const int bc = sh_bin;
    if (bc >= 0) {
      // pass 3: gather the candidates
      for (int i = tid; i < V; i += BLOCK) {
        const float z = to_f(x[i]) / Td;
        if (value_bin(m, z) <= bc) cand[atomicAdd(&sh_n, 1)] = z;
      }
      __syncthreads();
      const int n = sh_n;
      int n2 = 2;
      while (n2 < n) n2 <<= 1;
      for (int j = n + tid; j < n2; j += BLOCK) cand[j] = -INFINITY;
      __syncthreads();
      // bitonic sort, descending
      for (int size = 2; size <= n2; size <<= 1)
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
          for (int i = tid; i < n2; i += BLOCK) {
            const int l = i ^ stride;
            if (l > i) {
              const float a = cand[i], b = cand[l];
              const bool desc = (i & size) == 0;
              if (desc ? (a < b) : (a > b)) { cand[i] = b; cand[l] = a; }
            }
          }
          __syncthreads();
        }
      if (k_on) {
        t_k = cand[k - 1];
        double s = 0.0;
        for (int i = tid; i < n; i += BLOCK) if (cand[i] >= t_k) s += mass(cand[i], m);
        Zk = block_reduce(s, [](double a, double b) { return a + b; }, sh_d);
      }
      bool ok = true;
      if (p_on) {
        const double target = (double)p * Zk;
        const int per = (n2 + BLOCK - 1) / BLOCK;
        const int lo = tid * per, hi = min(lo + per, n);
        double mine = 0.0;
        for (int i = lo; i < hi; ++i) if (cand[i] >= t_k) mine += mass(cand[i], m);
        double excl = block_excl_scan(mine, sh_d);
        float inside = 0.f, kept = 0.f;
        for (int i = lo; i < hi; ++i) {
          if (cand[i] < t_k) continue;
          kept += 1.f;
          if (excl < target) inside += 1.f;
          excl += mass(cand[i], m);
        }
        const float n_in = block_reduce(inside, [](float a, float b) { return a + b; }, sh_f);
        const float n_kept = block_reduce(kept, [](float a, float b) { return a + b; }, sh_f);
        // without top-k the candidates end one bin past the estimated boundary; if every candidate is still
        // inside the nucleus, the boundary lies beyond them: take the exact radix path
        if (!k_on && n_in >= n_kept) ok = false;
        else t_p = cand[max((int)n_in, 1) - 1];
      }
      done = ok;
    }
    __syncthreads();
  }

  // ---- v1: exact radix selection (rows v2 cannot settle) ----
  // ---- top-k threshold: radix select of the k-th largest key ----
  uint32_t key_k = 0;  // smallest key: keep all
  if (!done && k_on) {
    uint32_t prefix = 0;
    float need = (float)k;  // counts below 2^24 are exact in float
    for (int r = 0; r < 4; ++r) {
      const int shift = 24 - 8 * r;
      for (int b = tid; b < NBINS; b += BLOCK) hist[b] = 0.f;
      __syncthreads();
      for (int i = tid; i < V; i += BLOCK) {
        const uint32_t key = f2key(to_f(x[i]) / Td);
        if (r == 0 || (key >> (shift + 8)) == (prefix >> (shift + 8)))
          atomicAdd(&hist[(key >> shift) & 0xffu], 1.f);
      }
      __syncthreads();
      scan_bins<true, float>(hist, need, 0.f, &sh_bin, &sh_above);
      __syncthreads();
      prefix |= ((uint32_t)sh_bin) << shift;
      need -= sh_above;
      __syncthreads();
    }
    key_k = prefix;
    // mass of the top-k survivors
    double s = 0.0;
    for (int i = tid; i < V; i += BLOCK) {
      const float z = to_f(x[i]) / Td;
      if (f2key(z) >= key_k && z != -INFINITY) s += mass(z, m);
    }
    Zk = block_reduce(s, [](double a, double b) { return a + b; }, sh_d);
  }
  if (!done && k_on) t_k = key2f(key_k);

  // ---- top-p threshold over the top-k survivors ----
  if (!done && p_on) {
    if (!k_on) {  // Zk = all the mass (v2 may have been skipped)
      double zs = 0.0;
      for (int i = tid; i < V; i += BLOCK) { const float z = to_f(x[i]) / Td; if (z != -INFINITY) zs += mass(z, m); }
      Zk = block_reduce(zs, [](double a, double b) { return a + b; }, sh_d);
    }
    const double target = (double)p * Zk;
    uint32_t prefix = 0;
    double above = 0.0;
    for (int r = 0; r < 4; ++r) {
      const int shift = 24 - 8 * r;
      for (int b = tid; b < NBINS; b += BLOCK) dhist[b] = 0.0;
      __syncthreads();
      for (int i = tid; i < V; i += BLOCK) {
        const float z = to_f(x[i]) / Td;
        const uint32_t key = f2key(z);
        if (key < key_k || z == -INFINITY) continue;
        if (r == 0 || (key >> (shift + 8)) == (prefix >> (shift + 8)))
          atomicAdd(&dhist[(key >> shift) & 0xffu], mass(z, m));
      }
      __syncthreads();
      scan_bins<false, double>(dhist, target, above, &sh_bin, &sh_dabove);
      __syncthreads();
      prefix |= ((uint32_t)sh_bin) << shift;
      above += sh_dabove;
      __syncthreads();
    }
    t_p = key2f(prefix);
  }

  // ---- min-p ----
  const float mp = min_p[row];
  const float t_m = (mp > 0.f) ? m + logf(mp) : -INFINITY;
  const float t = fmaxf(fmaxf(t_k, t_p), t_m);

  // ---- last pass: write and/or sample ----
  ArgMax best{-INFINITY, 0x7fffffff};
  for (int i = tid; i < V; i += BLOCK) {
    const float z = to_f(x[i]) / Td;
    const bool keep = (z >= t);
    if (write_out) o[i] = keep ? z : -INFINITY;
    if (do_sample && keep && z != -INFINITY) {
      const float score = z - logf(exp1_draw(seed, offset, row, i));
      if (score > best.v || (score == best.v && i < best.i)) best = {score, i};
    }
  }
  if (do_sample) {
    best = block_reduce(best, better, sh_am);
    if (tid == 0) tokens[row] = (best.i == 0x7fffffff) ? am.i : best.i;
  }
}

}  // namespace

// Launcher called from ops.cpp (which holds the torch binding and the argument checks).
// dtype: 0 float32, 1 float16, 2 bfloat16, 3 float64. Returns the launch's cudaError_t.
int launch_filter_sample(const void* logits, int dtype, const float* temperature, const int64_t* top_k,
                         const float* top_p, const float* min_p, float* out, int64_t* tokens, int B, int V,
                         bool write_out, bool do_sample, uint64_t seed, uint64_t offset, cudaStream_t stream) {
#define EAGLE_LAUNCH(T) filter_sample_kernel<T><<<B, BLOCK, 0, stream>>>(static_cast<const T*>(logits), temperature, \
      top_k, top_p, min_p, out, tokens, V, write_out, do_sample, seed, offset)
  switch (dtype) {
    case 0: EAGLE_LAUNCH(float); break;
    case 1: EAGLE_LAUNCH(__half); break;
    case 2: EAGLE_LAUNCH(__nv_bfloat16); break;
    case 3: EAGLE_LAUNCH(double); break;
    default: return (int)cudaErrorInvalidValue;
  }
#undef EAGLE_LAUNCH
  return (int)cudaGetLastError();
}
