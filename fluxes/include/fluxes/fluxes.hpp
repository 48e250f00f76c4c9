// The fluxes library: the flux expression language (lexer, parser, shape checker, lowering
// of vector algebra to a scalar DAG with common-subexpression elimination, C emitter,
// interpreter) and conservation-law files. Depends only on toml++ and the standard library.
#pragma once

#include "fluxes/ast.hpp"
#include "fluxes/checker.hpp"
#include "fluxes/dag.hpp"
#include "fluxes/diagnostics.hpp"
#include "fluxes/emit_c.hpp"
#include "fluxes/environment.hpp"
#include "fluxes/evaluate.hpp"
#include "fluxes/law.hpp"
#include "fluxes/law_lowering.hpp"
#include "fluxes/lower.hpp"
#include "fluxes/parser.hpp"
#include "fluxes/printer.hpp"
#include "fluxes/report.hpp"
#include "fluxes/source_text.hpp"
