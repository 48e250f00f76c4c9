// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1"), so every rtdg binary
// starts on machines without a driver. Private to core/rtcg.
#pragma once

#include <cuda.h>

#include <string>

namespace rtcg::cuda {

struct Driver {
#define RTCG_DRIVER_FUNCTIONS(X)                                                        \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString)                   \
  X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceGetName) X(cuDeviceGetAttribute)          \
  X(cuDeviceTotalMem) X(cuDeviceGetPCIBusId) X(cuDevicePrimaryCtxRetain)                  \
  X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuCtxGetCurrent) X(cuCtxSynchronize)  \
  X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction) X(cuFuncGetAttribute)    \
  X(cuFuncSetAttribute) X(cuFuncGetParamInfo) X(cuLaunchKernel)                           \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                                          \
  X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoD)              \
  X(cuMemsetD8) X(cuMemGetInfo)                                                           \
  X(cuMemAllocAsync) X(cuMemFreeAsync) X(cuDeviceGetDefaultMemPool) X(cuMemPoolTrimTo)    \
  X(cuMemPoolSetAttribute) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync) \
  X(cuMemsetD8Async) X(cuMemHostAlloc) X(cuMemFreeHost)                                   \
  X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamWaitEvent)        \
  X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize)              \
  X(cuEventElapsedTime)                                                                    \
  X(cuStreamBeginCapture) X(cuStreamEndCapture) X(cuGraphInstantiate) X(cuGraphExecUpdate) \
  X(cuGraphLaunch) X(cuGraphDestroy) X(cuGraphExecDestroy)
#define RTCG_DECLARE_POINTER(name) decltype(&::name) name = nullptr;
  RTCG_DRIVER_FUNCTIONS(RTCG_DECLARE_POINTER)
#undef RTCG_DECLARE_POINTER
};

// The loaded driver, or nullptr when libcuda.so.1 is missing or too old; why is in
// load_failure(). Loads once, thread-safe.
const Driver* try_driver();
const std::string& load_failure();
// The driver, or throws DeviceError saying why it is not usable.
const Driver& driver();

// Throws DeviceError "<what>: <CUDA error name>: <description>" unless result is CUDA_SUCCESS.
void check(CUresult result, const char* what);

}  // namespace rtcg::cuda
