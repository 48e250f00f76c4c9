// The plan schema: one table of every plan value (dg/plan.hpp), from which everything that
// names plan values is derived: the plan text (`run.plan`, the tuner's tables), parsing it,
// Plan::describe, the tuner's point <-> plan conversion (and so the tuning database's JSON),
// the tuner's `--space name=v1,v2` lists, and the plan table of docs/tuning.md.
//
// Adding a plan value: a member of dg::Plan, one entry in the table (dg/src/plan/schema.cpp),
// the generator phase that reads it, and a test (docs/design.md, "Adding a plan value").
//
// Every value is held as an int: enums as their underlying value (the order of `names`),
// switches as 0 (off) and 1 (on), numbers as themselves.
#pragma once

#include "dg/plan.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace rtdg::dg {

enum class ValueKind : unsigned char {
  choice,  // one of `names`, by index
  number,  // a whole number in low..high that `allowed` accepts
  toggle,  // on (1) or off (0)
};

// Which plans a value belongs to. A value that does not apply to a plan is left at its default
// there, is not written in the plan's text and is refused when a text gives it.
enum class Applies : unsigned char { every_plan, fused_plans, unfused_plans };

struct PlanField {
  const char* key = nullptr;  // the name in plan texts, tuner points and `--space` lists
  ValueKind kind = ValueKind::number;
  std::span<const char* const> names = {};  // choice: the names of the values 0, 1, ...
  int low = 0, high = 0;               // number: the range
  bool (*allowed)(int) = nullptr;      // number: a further rule within the range, or none
  const char* allowed_text = nullptr;  // number: what `allowed` accepts, for messages ("8 or 16")
  const char* zero_name = nullptr;     // number: a name that stands for 0 ("all" for k_unroll)
  int default_value = 0;
  Applies applies = Applies::every_plan;
  // A text or point without it is refused; otherwise it reads as the default (so texts and
  // tuning databases written before the value existed keep their meaning).
  bool required = false;
  // Written in plan texts only when it is not the default (true), or always (false).
  bool written_when_set = false;
  bool tuned = true;            // part of the tuner's point (and so of the tuning database)
  const char* space_alias = nullptr;  // another name for its `--space` list ("layouts")
  const char* doc = nullptr;    // one line for docs/tuning.md's table
  int (*get)(const Plan&) = nullptr;
  void (*set)(Plan&, int) = nullptr;
  // The plan's value as a phrase for Plan::describe, or "" to say nothing.
  std::string (*describe)(const Plan&) = nullptr;
};

// The table, in the order plan texts are written.
std::span<const PlanField> plan_fields();
// The entry named `key` (or, with `space_names`, whose space alias is `key`); nullptr if none.
const PlanField* find_plan_field(std::string_view key, bool space_names = false);

// Whether `field` belongs to `plan` (fused or unfused).
bool applies_to(const PlanField& field, const Plan& plan);
// The text form of a value ("element_major", "16", "all", "on").
std::string format_value(const PlanField& field, int value);
// The value a text names, or nothing.
std::optional<int> parse_value(const PlanField& field, std::string_view text);
// What the field's values are, for messages: "one of none, stage", "a whole number in 1..8",
// "8 or 16", "'all' or a whole number in 1..16", "on or off".
std::string valid_values(const PlanField& field);
// Why `value` is not one of the field's values, or "" when it is.
std::string value_refusal(const PlanField& field, int value);

// docs/tuning.md's table of plan values (markdown), from the schema: key, values, default,
// which plans, and the documentation line.
std::string plan_fields_markdown();

}  // namespace rtdg::dg
