// StepLog: records the steps of a conversation with a driver (DriverStep: name, outcome, time)
// in order, and announces each one before it runs, so the parent of an isolated child can say
// where a hang or crash happened. Used by the NVIDIA probe and the copy measurements.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/snapshot.h"

namespace gpuready {

class StepLog {
 public:
  using Hook = std::function<void(const std::string& step)>;
  StepLog(std::vector<DriverStep>& steps, Hook hook) : steps_(steps), hook_(std::move(hook)) {}
  void begin(std::string name) {
    name_ = std::move(name);
    announce(name_);
    t0_ = Clock::now();
  }
  DriverStep& end(bool ok, std::string code, std::string message) {
    DriverStep s;
    s.name = name_;
    s.ok = ok;
    s.code = std::move(code);
    s.message = std::move(message);
    s.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0_).count();
    steps_.push_back(std::move(s));
    return steps_.back();
  }
  // A step that was decided without calling anything (e.g. cuInit skipped).
  void note(std::string name, bool ok, std::string code, std::string message) {
    begin(std::move(name));
    end(ok, std::move(code), std::move(message)).ms = 0;
  }
  // Tells the hook about something that is not a step of its own (a measurement starting).
  void announce(const std::string& what) const {
    if (hook_) hook_(what);
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::vector<DriverStep>& steps_;
  Hook hook_;
  std::string name_;
  Clock::time_point t0_{};
};

}  // namespace gpuready
