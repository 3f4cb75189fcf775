//===- host_check.h - One graph on the host executor and the interpreter --===//
#ifndef GPUC_TEST_UNIT_HOST_CHECK_H_
#define GPUC_TEST_UNIT_HOST_CHECK_H_

#include <string>

#include <gtest/gtest.h>

#include "ir/interpreter.h"
#include "lib/host_executor.h"
#include "test/unit/test_util.h"
#include "tools/gpuc/random_inputs.h"

namespace gpuc::test {

/// Runs the one-result graph `text` on seeded random arguments through the host executor and
/// the interpreter and expects the results to agree within `tolerance` (CompareTensors).
inline void ExpectHostMatchesInterpreter(const std::string& text, uint64_t seed,
                                         const std::string& tolerance) {
  SCOPED_TRACE(text);
  const ir::Graph graph = ParseVerified(text);
  const std::vector<ir::HostTensor> args = tool::RandomArguments(graph, seed);
  absl::StatusOr<std::vector<ir::HostTensor>> want = ir::Interpret(graph, args);
  ASSERT_TRUE(want.ok()) << want.status();
  absl::StatusOr<std::vector<ir::HostTensor>> got = detail::HostExecutor::Get().Run(graph, args);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(CompareTensors((*got)[0], (*want)[0], tolerance), "");
}

}  // namespace gpuc::test

#endif  // GPUC_TEST_UNIT_HOST_CHECK_H_
