// The path NCCL chose for a pair, as NCCL itself reports it: with
// NCCL_DEBUG=INFO it logs each channel it connects ("Channel 00/0 : 0[0] ->
// 1[1] via P2P/CUMEM/read", "... [send] via NET/IB/0/GDRDMA", "via
// NET/Socket/0", "via SHM/direct/direct"). enable() asks for that log in a
// file of this process (unless the user set NCCL_DEBUG or NCCL_DEBUG_FILE
// already), before NCCL is loaded; path_since() reads the channels logged
// after a mark() taken before the pair's legs.
#pragma once

#include <cstdint>
#include <string>

namespace xb::fabric {

class NcclLog {
 public:
  NcclLog() = default;
  ~NcclLog();  // removes the file it asked for
  NcclLog(const NcclLog&) = delete;
  NcclLog& operator=(const NcclLog&) = delete;

  // Sets NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT and NCCL_DEBUG_FILE in
  // this process's environment; call before NCCL is first loaded.
  void enable();
  bool enabled() const { return !file_.empty(); }
  std::uint64_t mark() const;  // the log's current size
  // "NCCL P2P/CUMEM/read", "NCCL NET/Socket/0", several joined by ", ";
  // why there is none when the log names no channel or is not ours.
  std::string path_since(std::uint64_t mark) const;
  // The same, from log text (tests).
  static std::string channels_in(const std::string& log_text);

 private:
  std::string file_;
  std::string why_not_ = "NCCL's log was not asked for";
};

}  // namespace xb::fabric
