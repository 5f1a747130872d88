// The machine (System) as every result's "environment" and 'xferbench list
// --format json' write it, in both directions; and the identity of a
// recorded result (machine, build, command line) that --resume checks.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "machine/topology.hpp"

namespace xb::records {

nlohmann::json system_json(const System& sys);

// Throws DecodeError (records/document.hpp) naming the first missing or
// mistyped field. Every System read back (topology files, recorded
// results) comes through here. `complete`: the GPU fields the planner
// needs and every GPU link must be there (a topology); else only the GPUs'
// indices are, and links naming GPUs not listed are passed over (results
// trimmed by hand, for compare). Other fields may be absent (older files). `path`: where `env` is in its document, for the messages.
System decode_system(const nlohmann::json& env, const std::string& path = "", bool complete = true);

struct GpuIdentity {
  int index = 0;
  std::string name, uuid, bus_id;  // uuid "" when the result predates it
  std::string text() const;        // "gpu0 NVIDIA H200 GPU-1234... 00000000:18:00.0"
};
struct RunIdentity {
  std::string hostname;
  std::vector<GpuIdentity> gpus;
  std::string version;            // xferbench version
  std::string git;                // commit the binary was built from ("" = unknown)
  std::vector<std::string> args;  // the command line (resume compares comparable_args of it)
};
// The identity recorded in a run, sweep or scenario document; DecodeError
// when it lacks one.
RunIdentity decode_identity(const nlohmann::json& doc);

}  // namespace xb::records
