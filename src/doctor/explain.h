// The doctor's view of explain (src/explain/explainer.h): what a framework printed in a deep
// check goes through the same recognisers as a pasted error.
#pragma once

#include "explain/explainer.h"

namespace gpuready::doctor {

using ExplainMatch = explain::Match;
using Explainer = explain::Explainer;
using explain::explain_to_json;

}  // namespace gpuready::doctor
