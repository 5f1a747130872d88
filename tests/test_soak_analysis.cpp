// soak analysis: planted drift, steps and telemetry episodes are found.
#include <gtest/gtest.h>

#include "soak/soak_analysis.hpp"
