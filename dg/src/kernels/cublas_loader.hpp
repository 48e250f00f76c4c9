// cuBLAS, loaded at run time with dlopen (as rtcg loads the CUDA driver), so rtdg links no
// CUDA runtime and every binary starts on machines without it. Only what the library
// formulation (dg/library_formulation.hpp) needs: a handle, its stream, DGEMM and SGEMM.
// Private to the solver target.
#pragma once

#include <string>

namespace rtdg::dg::cublas {

// cuBLAS's types, declared here (no cublas_v2.h): the handle is an opaque pointer,
// cublasOperation_t and cublasStatus_t are C enums (int), cudaStream_t is a CUstream.
using Handle = void*;
using Status = int;
using Operation = int;
inline constexpr Status success = 0;
inline constexpr Operation op_n = 0;  // CUBLAS_OP_N

struct Api {
  Status (*create)(Handle* handle) = nullptr;          // cublasCreate_v2
  Status (*destroy)(Handle handle) = nullptr;          // cublasDestroy_v2
  Status (*set_stream)(Handle handle, void* stream) = nullptr;  // cublasSetStream_v2
  Status (*dgemm)(Handle handle, Operation transa, Operation transb, int m, int n, int k, const double* alpha,
                  const double* A, int lda, const double* B, int ldb, const double* beta, double* C,
                  int ldc) = nullptr;                  // cublasDgemm_v2
  Status (*sgemm)(Handle handle, Operation transa, Operation transb, int m, int n, int k, const float* alpha,
                  const float* A, int lda, const float* B, int ldb, const float* beta, float* C,
                  int ldc) = nullptr;                  // cublasSgemm_v2
  std::string library;  // the file that was loaded, e.g. "libcublas.so.13"
};

// The loaded library, or nullptr when no libcublas could be opened or it lacks a symbol;
// why is in load_failure(). Loads once, thread-safe; the library stays loaded.
const Api* try_load();
const std::string& load_failure();
// The library, or throws dg::Error "cuBLAS unavailable: <why>".
const Api& api();

// "CUBLAS_STATUS_NOT_INITIALIZED (1)" and so on.
std::string status_text(Status status);

}  // namespace rtdg::dg::cublas
