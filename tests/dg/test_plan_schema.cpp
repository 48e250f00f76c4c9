// The plan schema (dg/plan_schema.hpp): every plan value documented, and every value of every
// entry carried unchanged through the plan text, the tuner's point, the tuning database's JSON
// and the tuner's space lists.
#include "dg/error.hpp"
#include "dg/kernels.hpp"
#include "dg/plan_schema.hpp"
#include "dg/tuning.hpp"

#include <rtcg/tuning_db.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace rtdg::dg {
namespace {

// The values of an entry worth carrying: every name of a choice, both toggles, and for numbers
// the ends of the range, the default and (where a rule thins the range) what the rule accepts.
std::vector<int> sample_values(const PlanField& field) {
  std::set<int> values{field.default_value};
  switch (field.kind) {
    case ValueKind::choice:
      for (std::size_t i = 0; i < field.names.size(); ++i) values.insert(static_cast<int>(i));
      break;
    case ValueKind::toggle: values.insert({0, 1}); break;
    default:
      for (int v = field.low; v <= field.high; ++v)
        if (value_refusal(field, v).empty() && (v == field.low || v == field.high || v == field.low + 1 || field.allowed))
          values.insert(v);
      if (field.zero_name) values.insert(0);
  }
  return {values.begin(), values.end()};
}

// A plan the entry applies to.
Plan base_plan(const PlanField& field) {
  Plan plan;
  if (field.applies == Applies::fused_plans) plan.fusion = Fusion::stage;
  return plan;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(PlanSchema, EveryMemberOfPlanHasOneEntry) {
  // Setting each entry's value to a non-default one changes the plan, and only that entry's
  // get sees it: no two entries share a member, and the table covers all of Plan's members
  // (Plan has exactly as many members as the table has entries; a member without an entry
  // would not be compared by the round trips below).
  const auto fields = plan_fields();
  EXPECT_EQ(fields.size(), 27u) << "a plan value was added or removed: update Plan, the table and this count";
  for (const PlanField& field : fields) {
    SCOPED_TRACE(field.key);
    for (const int value : sample_values(field)) {
      if (value == field.default_value) continue;
      Plan plan = base_plan(field);
      field.set(plan, value);
      EXPECT_EQ(field.get(plan), value);
      EXPECT_NE(plan, base_plan(field));
      for (const PlanField& other : fields)
        if (&other != &field && std::string_view(other.key) != "fusion") {
          EXPECT_EQ(other.get(plan), other.get(base_plan(field))) << other.key << " moved with " << field.key;
        }
    }
  }
}

TEST(PlanSchema, EveryValueRoundTripsThroughTextPointAndDatabase) {
  const std::filesystem::path db_file =
      std::filesystem::temp_directory_path() / ("rtdg-plan-schema-" + std::to_string(::getpid()) + ".json");
  std::filesystem::remove(db_file);
  int stored = 0;
  for (const PlanField& field : plan_fields()) {
    SCOPED_TRACE(field.key);
    ASSERT_NE(field.doc, nullptr);
    EXPECT_GT(std::string(field.doc).size(), 20u);
    for (const int value : sample_values(field)) {
      SCOPED_TRACE(value);
      Plan plan = base_plan(field);
      field.set(plan, value);
      // Text: written (or left out as the default) and read back.
      const std::string text = to_text(plan);
      EXPECT_EQ(plan_from_text(text), plan) << text;
      EXPECT_EQ(parse_value(field, format_value(field, value)), value);
      if (!field.tuned) continue;
      // The tuner's point, and the tuning database's JSON (stored, then read by a new TuningDb).
      const rtcg::tune::Point point = point_of(plan);
      EXPECT_EQ(point.at(field.key), value);
      EXPECT_EQ(plan_of(point), plan);
      rtcg::tune::TuningRecord record;
      record.device.name = "schema test";
      record.family = plan_family;
      record.template_hash = std::string(field.key) + "=" + std::to_string(value);
      record.problem = {"schema", 1};
      record.winner = point;
      rtcg::tune::TuningDb(db_file).store(record);
      ++stored;
      const auto back = rtcg::tune::TuningDb(db_file).find_exact(record.device, plan_family, record.template_hash,
                                                                  record.problem);
      ASSERT_TRUE(back.has_value());
      EXPECT_EQ(plan_of(back->winner), plan);
    }
  }
  EXPECT_GT(stored, 50);
  std::filesystem::remove(db_file);
}

TEST(PlanSchema, EveryTunedValueHasASpaceListThatTakesItsValues) {
  const std::vector<std::string> lists = space_list_keys();
  for (const PlanField& field : plan_fields()) {
    SCOPED_TRACE(field.key);
    const bool listed = std::find(lists.begin(), lists.end(), field.key) != lists.end();
    // fusion is tried both ways (PlanSpace::unfused), and the unfused kernels' block sizes are
    // not tuned: every other tuned value has a list.
    EXPECT_EQ(listed, field.tuned && std::string_view(field.key) != "fusion");
    if (!listed) continue;
    for (const int value : sample_values(field)) {
      PlanSpace space;
      set_space_values(space, std::string(field.key) + "=" + format_value(field, value));
      EXPECT_EQ(space_values(space, field.key), std::vector<int>{value});
      if (field.space_alias) {
        PlanSpace aliased;
        set_space_values(aliased, std::string(field.space_alias) + "=" + format_value(field, value));
        EXPECT_EQ(space_values(aliased, field.key), std::vector<int>{value});
      }
    }
  }
}

TEST(PlanSchema, ValuesOutsideTheSchemaAreRefusedEverywhere) {
  for (const PlanField& field : plan_fields()) {
    SCOPED_TRACE(field.key);
    const int bad = field.kind == ValueKind::number ? field.high + 1 : static_cast<int>(field.names.size()) + 2;
    EXPECT_FALSE(value_refusal(field, bad).empty());
    Plan plan = base_plan(field);
    const std::string text = to_text(plan) + (to_text(plan).find(std::string(" ") + field.key + "=") == std::string::npos &&
                                                      to_text(plan).rfind(std::string(field.key) + "=", 0) != 0
                                                  ? " " + std::string(field.key) + "=" + std::to_string(bad)
                                                  : "");
    if (text != to_text(plan)) {
      EXPECT_THROW((void)plan_from_text(text), Error) << text;
    }
    if (!field.tuned) continue;
    rtcg::tune::Point point = point_of(plan);
    point[field.key] = bad;
    EXPECT_THROW((void)plan_of(point), Error);
    // check(): the one validity function refuses the value with the schema's reason (a toggle
    // is a bool in Plan: it cannot hold another value).
    if (field.kind == ValueKind::toggle) continue;
    field.set(plan, bad);
    KernelSpec spec;
    fluxes::Law law;
    Element element;
    spec.law = &law;
    spec.element = &element;
    spec.plan = plan;
    EXPECT_EQ(check(spec), value_refusal(field, bad));
  }
}

TEST(PlanSchema, TextNamesTheKeyThatDoesNotBelong) {
  try {
    (void)plan_from_text("fusion=none layout=field_major volume_elements=0 surface_elements=0 update_block=256 "
                         "products=tensor");
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("products= is a value of fused plans (fusion=stage)"), std::string::npos)
        << error.what();
  }
  // A later word replaces an earlier one: a plan text with a word appended.
  EXPECT_EQ(plan_from_text("fusion=none layout=field_major volume_elements=0 surface_elements=0 update_block=256 "
                           "layout=element_major")
                .layout,
            Layout::element_major);
}

TEST(PlanSchema, TheDocsTableIsTheSchemas) {
  // docs/tuning.md holds the table between these markers; `rtdg tune dg --plan-values` prints it.
  const std::string docs = read_file(std::filesystem::path(RTDG_SOURCE_DIR) / "docs" / "tuning.md");
  const std::string begin = "<!-- plan values: generated from dg/src/plan/schema.cpp -->\n";
  const std::string end = "<!-- end of plan values -->";
  const auto from = docs.find(begin);
  ASSERT_NE(from, std::string::npos) << "docs/tuning.md lacks the plan-value table's markers";
  const auto to = docs.find(end, from);
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(docs.substr(from + begin.size(), to - from - begin.size()), plan_fields_markdown())
      << "regenerate the table: rtdg tune dg --plan-values";
}

}  // namespace
}  // namespace rtdg::dg
