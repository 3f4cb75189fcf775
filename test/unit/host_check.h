//===- host_check.h - One graph on the host executor and the interpreter --===//
#ifndef GPUC_TEST_UNIT_HOST_CHECK_H_
#define GPUC_TEST_UNIT_HOST_CHECK_H_

#include <string>

#include <gtest/gtest.h>

#include "ir/interpreter.h"
#include "lib/backend/host/host_executor.h"
#include "test/unit/test_util.h"
#include "tools/gpuc/random_inputs.h"

namespace gpuc::test {

/// Runs `graph` on `args` through the host executor and the interpreter and expects every
/// result to agree within `tolerance` (CompareTensors).
inline void ExpectHostMatchesInterpreter(const ir::Graph& graph,
                                         const std::vector<ir::HostTensor>& args,
                                         const std::string& tolerance) {
  absl::StatusOr<std::vector<ir::HostTensor>> want = ir::Interpret(graph, args);
  ASSERT_TRUE(want.ok()) << want.status();
  absl::StatusOr<std::vector<ir::HostTensor>> got = detail::HostExecutor::Get().Run(graph, args);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), want->size());
  for (size_t r = 0; r < want->size(); ++r) {
    EXPECT_EQ(CompareTensors((*got)[r], (*want)[r], tolerance), "") << "result " << r;
  }
}

/// The same for the graph `text` on seeded random arguments.
inline void ExpectHostMatchesInterpreter(const std::string& text, uint64_t seed,
                                         const std::string& tolerance) {
  SCOPED_TRACE(text);
  const ir::Graph graph = ParseVerified(text);
  ExpectHostMatchesInterpreter(graph, tool::RandomArguments(graph, seed), tolerance);
}

}  // namespace gpuc::test

#endif  // GPUC_TEST_UNIT_HOST_CHECK_H_
