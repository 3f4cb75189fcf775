//===- current_options.h - The current options without copying them -------===//
//
// Evaluation asks for the current options on every step of a loop; copying them (several
// strings) and formatting their plan key each time cost microseconds. A snapshot holds them
// with their plan key, made once per SetCurrentOptions and shared.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_EXEC_CURRENT_OPTIONS_H_
#define GPUC_LIB_EXEC_CURRENT_OPTIONS_H_

#include <memory>
#include <string>

#include "lib/exec/options.h"

namespace gpuc::exec {

struct OptionsSnapshot {
  Options options;
  std::string plan_key;  // options.PlanKey()
};

/// The current options as one shared, immutable snapshot (a lock and a reference count).
std::shared_ptr<const OptionsSnapshot> CurrentSnapshot();

}  // namespace gpuc::exec

#endif  // GPUC_LIB_EXEC_CURRENT_OPTIONS_H_
