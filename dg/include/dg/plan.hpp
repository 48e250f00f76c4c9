// How the DG kernels lay out memory and map work to threads: a value the kernel generator
// takes, so tuned plans (from the tuner's database) plug in without touching the solver.
//
// The default plan is correct for every law, order and shape and reasonably fast: state stored
// field-major, one thread per node, a few elements per thread block so a block holds at
// least a warp's worth of nodes, operators (D, LIFT) read from global memory.
#pragma once

#include <string>

namespace rtdg::dg {

// Where component c of node i of element k lives in a state array of `components` x K x Np
// values:
//   field_major    ((c * K) + k) * Np + i     each component a contiguous Np x K block (the
//                                             book's layout, one array per field)
//   element_major  ((k * components) + c) * Np + i   an element's components together
enum class Layout : unsigned char { field_major, element_major };

struct Plan {
  Layout layout = Layout::field_major;
  // Elements per thread block of the volume and surface kernels on CUDA (threads: Np or
  // Nfaces*Nfp per element). 0: enough elements for about 128 threads.
  int volume_elements_per_block = 0;
  int surface_elements_per_block = 0;
  // Threads per block of the Runge-Kutta update kernel.
  int update_block_size = 256;

  // A short text for logs and the run summary, e.g. "field_major, volume 4/block, ...".
  std::string describe() const;
  friend bool operator==(const Plan&, const Plan&) = default;
};

const char* to_string(Layout layout);
// "field_major" or "element_major"; throws dg::Error listing both otherwise.
Layout parse_layout(const std::string& text);

// Elements per block actually used for a kernel whose per-element thread count is
// `threads_per_element`, given the plan's request (0: automatic).
int elements_per_block(int requested, int threads_per_element);

}  // namespace rtdg::dg
