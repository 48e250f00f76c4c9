// The part of the Bernstein layered LIFT (Basis::bernstein, by-column plans;
// dg/src/kernels/fused/lift.cpp) that no order or plan changes. The layers themselves (one
// literal-weighted sum per entry) are generated.
//
// Where the faces are written inline, one after another, RTDG_LIFT_FENCE() between them keeps
// the compiler from hoisting the next face's loads into this face's registers (no instruction;
// nothing on the host).
//
// The outlined faces (28 or more face nodes: order 6 and up on tetrahedra) reach their column
// through offsets into the block's dynamic shared memory; that pointer arithmetic stays in the
// generated text: written as a helper function here, even a force-inlined one, NVRTC 13 emits
// other PTX for those faces (another instruction order and register count, sm_90), a change to
// measure on a GPU before making it.
#ifndef RTDG_LAYERED_LIFT_H
#define RTDG_LAYERED_LIFT_H

#include <rtcg/kernel.h>

#if RTCG_CUDA
#define RTDG_LIFT_FENCE() asm volatile("" ::: "memory")
#else
#define RTDG_LIFT_FENCE()
#endif

#endif  // RTDG_LAYERED_LIFT_H
