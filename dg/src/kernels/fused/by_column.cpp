// Volume and LIFT products by column (Operators::constant, literals, stencil): the operator parts,
// the constant table, the per-task cases.
#include "kernels/fused/fused.hpp"

namespace rtdg::dg::kernels::fused {

std::vector<ColumnPart> by_column_parts(const KernelSpec& spec) {
  const Element& element = *spec.element;
  const int Np = element.Np, Nfn = element.Nfaces * element.Nfp, dim = element.dim;
  const Eigen::MatrixXd* derivative[3] = {&element.Dr, &element.Ds, &element.Dt};
  std::vector<ColumnPart> parts;
  auto lift = [&element](int i, int m) { return element.LIFT(i, m); };
  if (spec.plan.derivative == Derivative::state) {
    // sY rows a NP + i = (D_a u)(i), sZ rows i = (LIFT sF)(i). Operators::stencil: LIFT only (the
    // node phase takes D_a u from the lattice stencil, write_stencil_flux).
    for (int a = 0; a < dim && spec.plan.operators != Operators::stencil; ++a) {
      const Eigen::MatrixXd* D = derivative[a];
      parts.push_back({"sY", "LDY", a * Np, {{"sq", "LDQ", Np, [D](int i, int j) { return (*D)(i, j); }}}});
    }
    parts.push_back({"sZ", "LDZ", 0, {{"sF", "LDF", Nfn, lift}}, lift_in_layers(spec)});
  } else {
    // sY rows i = -sum_a (D_a G_a)(i) + (LIFT sF)(i).
    auto minus_d = [derivative, Np](int i, int j) { return -(*derivative[j / Np])(i, j % Np); };
    parts.push_back({"sY", "LDY", 0, {{"sG", "LDG", dim * Np, minus_d}, {"sF", "LDF", Nfn, lift}}});
  }
  // The constant table: every operator's Np rows, in this order.
  int base = 0;
  for (ColumnPart& part : parts)
    for (ColumnInput& input : part.inputs) {
      input.base = base;
      base += Np * input.count;
    }
  return parts;
}

// A literal of the kernel's real type for `value`, exact (hexadecimal: %a), in parentheses.
std::string real_literal(double value, bool single) {
  char text[64];
  if (single) std::snprintf(text, sizeof text, "%af", static_cast<double>(static_cast<float>(value)));
  else std::snprintf(text, sizeof text, "%a", value);
  return std::string("(") + text + ")";
}

// Operators::constant: the parts' operator entries as one table in constant memory (a static
// array on the host), written once per program, before the kernels.
void write_constant_operators(rtcg::SourceWriter& w, const KernelSpec& spec) {
  const bool single = spec.scalar == fluxes::ScalarType::float32;
  std::vector<std::string> entries;
  for (const ColumnPart& part : by_column_parts(spec))
    for (const ColumnInput& input : part.inputs)
      for (int i = 0; i < spec.element->Np; ++i)
        for (int j = 0; j < input.count; ++j) entries.push_back(real_literal(input.value(i, j), single));
  w.line("// The operators for the by-column products (Operators::constant), entry (i, j) of each");
  w.line("// operator row by row, the operators in the order the products take them.");
  w.line("#if RTCG_CUDA");
  w.line("__constant__ real rtdg_cops[" + str(static_cast<int>(entries.size())) + "] = {");
  w.line("#else");
  w.line("static const real rtdg_cops[" + str(static_cast<int>(entries.size())) + "] = {");
  w.line("#endif");
  for (std::size_t n = 0; n < entries.size(); n += 8) {
    std::string row = "  ";
    for (std::size_t m = n; m < std::min(entries.size(), n + 8); ++m) row += entries[m] + ",";
    w.line(row);
  }
  w.line("};");
  w.line();
}

// Operators::constant and literals, sq, sF (and sG) filled and synced: the products into sY (and
// sZ) by column. Task s of NTASK = (parts x chunks) x stride (a layered LIFT part: one task per
// face share, not chunks) takes column col = s % stride (none at or past NCOL; the stride is
// NCOL, or more where that keeps a warp on one case: column_task_stride) and the rows of one
// chunk of one part: consecutive threads take consecutive columns of the same chunk, so a warp's
// threads run the same code (the same operator entry: a literal, or one constant-memory address
// fixed in the code, a broadcast), and each reads its own column (odd leading dimensions: no bank
// conflicts). Each input entry read serves the chunk's rows, accumulated in registers.
void write_by_column_products(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc) {
  const bool literals = spec.plan.operators == Operators::literals;
  const std::vector<ColumnPart> parts = by_column_parts(spec);
  int tasks = 0;
  for (const ColumnPart& part : parts) tasks += part.layered ? spec.plan.face_threads : sc.chunks;
  const char* where = literals                                        ? "as literals"
                      : spec.plan.operators == Operators::stencil ? "the derivatives by stencil later"
                                                                      : "in constant memory";
  w.line(std::string("// By-column products (operators ") + where + "): " +
         str(static_cast<int>(parts.size())) + (parts.size() == 1 ? " part" : " parts") + " of " + str(sc.chunks) +
         (sc.chunks == 1 ? " chunk" : " chunks") + " per column.");
  const int stride = column_task_stride(tasks, sc.ncolp, sc.threads);
  const bool padded = stride != sc.ncolp;
  const std::string stride_text = padded ? str(stride) : "(NE * NCOMP)";
  if (padded)
    w.line("// Tasks " + str(stride) + " columns apart, so that a warp's lanes take the same case (column_task_stride).");
  auto slots = w.block("RTDG_SLOTS(s, " + (padded ? str(tasks * stride) : str(tasks) + " * NE * NCOMP") + ")");
  w.line("const int pc = s / " + stride_text + ";");
  w.line("const int col = s - pc * " + stride_text + ";");
  w.line(std::string("if (") + (padded ? "col >= NE * NCOMP || " : "") + "k0 + col / NCOMP >= ke) continue;");
  write_column_task_cases(w, spec, sc, parts);
}

// The switch over the by-column tasks' cases (pc), inside the loop over tasks.
void write_column_task_cases(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc,
                             const std::vector<ColumnPart>& parts) {
  const bool literals = spec.plan.operators == Operators::literals;
  const bool single = spec.scalar == fluxes::ScalarType::float32;
  const int Np = spec.element->Np;
  auto cases = w.block("switch (pc)");
  int task = 0;
  for (const ColumnPart& part : parts) {
    if (part.layered) {
      // Built once for the column's face shares (make_bernstein: about 15 ms at order 7); the
      // outlined faces' functions have their own.
      const BernsteinOperators b = lift_faces_outlined(*spec.element) ? BernsteinOperators{} : make_bernstein(*spec.element);
      for (int share = 0; share < spec.plan.face_threads; ++share) {
        auto body = w.block("case " + str(task++) + ":");
        write_layered_lift(w, spec, b, part, share, static_cast<long long>(sc.ncolp) * sc.ldz);
        w.line("break;");
      }
      continue;
    }
    for (int chunk = 0; chunk < sc.chunks; ++chunk, ++task) {
      const int i0 = chunk * Np / sc.chunks, i1 = (chunk + 1) * Np / sc.chunks, rows = i1 - i0;
      auto body = w.block("case " + str(task) + ":");
      w.line("// rows " + str(part.row0 + i0) + " .. " + str(part.row0 + i1 - 1) + " of " + part.output);
      w.line("real acc[" + str(rows) + "] = {};");
      for (const ColumnInput& input : part.inputs) {
        auto scope = w.block("");
        w.line("const real* x = " + input.buffer + " + col * " + input.ld + ";");
        // Unrolled, zero entries dropped (GiMMiK: a zero entry costs nothing); each entry a
        // literal, or the constant table's entry at an address fixed in the code.
        for (int j = 0; j < input.count; ++j) {
          std::string line = "{ const real v = x[" + str(j) + "];";
          bool any = false;
          for (int r = 0; r < rows; ++r) {
            const double value = input.value(i0 + r, j);
            const bool zero = single ? static_cast<float>(value) == 0.0f : value == 0.0;
            if (zero) continue;
            const std::string entry =
                literals ? real_literal(value, single)
                         : "rtdg_cops[" + str(input.base + (i0 + r) * input.count + j) + "]";
            line += " acc[" + str(r) + "] += " + entry + " * v;";
            any = true;
          }
          if (any) w.line(line + " }");
        }
      }
      w.line("real* y = " + part.output + " + col * " + part.ld + " + " + str(part.row0 + i0) + ";");
      w.line("#pragma unroll");
      w.line("for (int r = 0; r < " + str(rows) + "; ++r) y[r] = acc[r];");
      w.line("break;");
    }
  }
  w.line("default: break;");
}

}  // namespace rtdg::dg::kernels::fused
