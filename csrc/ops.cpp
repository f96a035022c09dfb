// Torch binding for the fused ops in filter_sample.cu (kept apart so that nvcc compiles no torch headers).
#include <torch/extension.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>

int launch_filter_sample(const void* logits, int dtype, const float* temperature, const int64_t* top_k,
                         const float* top_p, const float* min_p, float* out, int64_t* tokens, int B, int V,
                         bool write_out, bool do_sample, uint64_t seed, uint64_t offset, cudaStream_t stream);

// logits (B, V) fp32/fp16/bf16/fp64 contiguous CUDA; temperature/top_p/min_p (B,) fp32; top_k (B,) int64.
// out (B, V) fp32, written if write_out; tokens (B,) int64, written if do_sample.
void filter_sample(torch::Tensor logits, torch::Tensor temperature, torch::Tensor top_k, torch::Tensor top_p,
                   torch::Tensor min_p, torch::Tensor out, torch::Tensor tokens, bool write_out, bool do_sample,
                   int64_t seed, int64_t offset) {
  TORCH_CHECK(logits.is_cuda() && logits.dim() == 2 && logits.is_contiguous(), "logits must be a contiguous (B, V) CUDA tensor");
  const int64_t B = logits.size(0), V = logits.size(1);
  TORCH_CHECK(B > 0 && V > 0 && V < (1 << 24), "need B > 0 and 0 < V < 2^24, got B=", B, " V=", V);
  auto is_rows = [&](const torch::Tensor& t, c10::ScalarType st) {
    return t.is_cuda() && t.scalar_type() == st && t.numel() == B && t.is_contiguous() && t.device() == logits.device();
  };
  TORCH_CHECK(is_rows(temperature, torch::kFloat32), "temperature must be (B,) float32 on the logits' device");
  TORCH_CHECK(is_rows(top_p, torch::kFloat32), "top_p must be (B,) float32 on the logits' device");
  TORCH_CHECK(is_rows(min_p, torch::kFloat32), "min_p must be (B,) float32 on the logits' device");
  TORCH_CHECK(is_rows(top_k, torch::kInt64), "top_k must be (B,) int64 on the logits' device");
  if (write_out) TORCH_CHECK(out.is_cuda() && out.scalar_type() == torch::kFloat32 && out.is_contiguous() && out.numel() == B * V,
                             "out must be a contiguous (B, V) float32 CUDA tensor");
  if (do_sample) TORCH_CHECK(tokens.is_cuda() && tokens.scalar_type() == torch::kInt64 && tokens.numel() == B,
                             "tokens must be a (B,) int64 CUDA tensor");
  int dtype;
  switch (logits.scalar_type()) {
    case torch::kFloat32: dtype = 0; break;
    case torch::kFloat16: dtype = 1; break;
    case torch::kBFloat16: dtype = 2; break;
    case torch::kFloat64: dtype = 3; break;
    default: TORCH_CHECK(false, "unsupported logits dtype ", logits.scalar_type());
  }
  const c10::cuda::CUDAGuard guard(logits.device());
  const int err = launch_filter_sample(logits.data_ptr(), dtype, temperature.data_ptr<float>(), top_k.data_ptr<int64_t>(),
                                       top_p.data_ptr<float>(), min_p.data_ptr<float>(),
                                       write_out ? out.data_ptr<float>() : nullptr,
                                       do_sample ? tokens.data_ptr<int64_t>() : nullptr, (int)B, (int)V, write_out,
                                       do_sample, (uint64_t)seed, (uint64_t)offset, c10::cuda::getCurrentCUDAStream());
  TORCH_CHECK(err == 0, "filter_sample launch failed: ", cudaGetErrorString((cudaError_t)err));
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("filter_sample", &filter_sample, "fused temperature/top-k/top-p/min-p filtering and Gumbel-max sampling");
}
