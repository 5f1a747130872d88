#include "pingpong/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <new>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "comm/stop_relay.hpp"
#include "base/fault.hpp"
#include "base/pattern.hpp"
#include "base/stop.hpp"
#include "pingpong/device_transport_base.hpp"
#include "pingpong/nccl_api.hpp"
#include "pingpong/schedule.hpp"
#include "pingpong/select.hpp"
#include "pingpong/transport.hpp"
#include "pingpong/pingpong_json.hpp"

namespace xb::pingpong {

Environment default_environment() {
  return Environment{device_count_or_zero, nccl::available, gpu_identity, make_transport};
}

namespace {

comm::Seconds timeout_of(const Options& o) { return comm::Seconds(o.timeout_s); }

// This rank's GPUs for announce(). GPUs and NCCL are only probed when a
// GPU endpoint is asked for, so host-only runs never initialize CUDA.
void local_gpus(RankInfo& info, const comm::Communicator& c, const Options& o, const Environment& env) {
  const bool holds_dev1 = o.all_pairs || c.rank() == 0;
  const bool holds_dev2 = o.all_pairs || c.rank() == 1;
  const bool wants_gpu = (holds_dev1 && o.dev1.gpu) || (holds_dev2 && o.dev2.gpu);
  if (!wants_gpu) return;
  const int count = env.device_count();
  const auto identify = [&](int gpu, std::string& bus, std::vector<std::string>& peers) {
    if (gpu < 0) return;
    GpuIdentity id = env.gpu_identity(gpu);
    bus = std::move(id.bus);
    peers = std::move(id.peers);
  };
  if (holds_dev1) info.gpu_as_dev1 = resolve_device(o.dev1, info.local_rank, count);
  if (holds_dev2) info.gpu_as_dev2 = resolve_device(o.dev2, info.local_rank, count);
  identify(info.gpu_as_dev1, info.bus_as_dev1, info.peers_as_dev1);
  identify(info.gpu_as_dev2, info.bus_as_dev2, info.peers_as_dev2);
  info.nccl = env.nccl_available();
}

// The pair swaps `mine` for the peer's text: the initiator sends first.
std::string swap_text(const PairContext& ctx, int tag, const std::string& mine) {
  if (ctx.initiator) ctx.comm->send_string(ctx.peer, tag, mine, ctx.timeout);
  std::string theirs = ctx.comm->recv_string(ctx.peer, tag, ctx.timeout);
  if (!ctx.initiator) ctx.comm->send_string(ctx.peer, tag, mine, ctx.timeout);
  return theirs;
}

std::string rank_prefix(int rank) { return fmt::format("rank {}: ", rank); }

// Runs `step`, then both ranks of the pair swap how it went; if either
// failed, both throw (each its own error first), so neither waits for a
// peer that gave up.
template <typename Fn>
void checkpointed(const PairContext& ctx, Fn&& step) {
  std::optional<Error> mine;
  try {
    mine = comm::error_of(step);
  } catch (const std::bad_alloc&) {
    mine = Error(ErrorKind::resources, fmt::format("out of host memory while setting up buffers for messages of up "
                                                   "to {} bytes",
                                                   ctx.max_bytes));
  }
  ctx.comm->send_string(ctx.peer, kTagStatus, comm::error_to_wire(mine ? &*mine : nullptr), ctx.timeout);
  const auto theirs = comm::error_from_wire(ctx.comm->recv_string(ctx.peer, kTagStatus, ctx.timeout),
                                            rank_prefix(ctx.peer));
  if (mine) throw Error(mine->kind(), rank_prefix(ctx.comm->rank()) + mine->what());
  if (theirs) throw *theirs;
}

std::uint64_t pattern_seed(const Options& o, bool initiator, std::uint64_t bytes) {
  return (o.seed * 1000003ULL + bytes) * 2 + (initiator ? 0 : 1);
}

// Which pattern this rank's receive buffer must hold after a run, if any.
std::optional<std::uint64_t> expected_seed(const Options& o, bool initiator, std::uint64_t bytes) {
  switch (o.mode) {
    case Mode::pingpong:
      // echo: the initiator's pattern on both ranks (the responder sent it
      // back); separate: each rank's receive buffer holds the peer's pattern.
      if (o.buffers == Buffers::echo) return pattern_seed(o, true, bytes);
      return pattern_seed(o, !initiator, bytes);
    case Mode::bw:
      if (initiator) return std::nullopt;  // it only receives acknowledgements
      return pattern_seed(o, true, bytes);
    case Mode::bibw: return pattern_seed(o, !initiator, bytes);
  }
  return std::nullopt;
}

std::string check_received(Transport& t, const Options& o, bool initiator, std::uint64_t bytes) {
  const auto seed = expected_seed(o, initiator, bytes);
  if (!seed) return "";
  const auto data = t.received(bytes);
  const std::uint64_t bad = verify_pattern_host(data.data(), data.size(), *seed);
  if (bad == data.size()) return "";
  return fmt::format("rank {} received wrong data at byte offset {}", initiator ? "initiator" : "responder", bad);
}

// The timed repetitions of a size run in slices of about kSliceSeconds
// (by the initiator's clock). Before each slice the initiator sends its
// stop request and the slice's length, and the responder answers with its
// own stop request, so a signal to either rank ends the size within one
// slice, at the same repetition on both; the size is then not run. The
// exchange is outside the timed repetitions.
constexpr double kSliceSeconds = 0.1;

// The next slice's repetitions: about kSliceSeconds at the mean of the
// repetitions timed last (one repetition when nothing was timed yet).
int slice_length(const std::vector<double>& last, int left) {
  if (last.empty()) return std::min(left, 1);
  double sum = 0;
  for (double t : last) sum += t;
  const double mean = sum / static_cast<double>(last.size());
  const double fits = mean > 0 ? kSliceSeconds / mean : static_cast<double>(left);
  return static_cast<int>(std::clamp(fits, 1.0, static_cast<double>(left)));
}

// The pair's agreement before a slice: the stop both act on (a signal
// first) and, from the initiator, the slice's length.
StopReason agree_slice(const PairContext& ctx, int& reps) {
  const StopReason mine = polled_stop();
  const std::string in = swap_text(ctx, kTagSlice, fmt::format("{} {}", static_cast<int>(mine), reps));
  int stop = 0, their_reps = reps;
  std::sscanf(in.c_str(), "%d %d", &stop, &their_reps);
  if (!ctx.initiator) reps = their_reps;
  const auto theirs = static_cast<StopReason>(stop);
  return ctx.initiator ? comm::first_stop(mine, theirs) : comm::first_stop(theirs, mine);
}

// One size: fill, sync the pair (the seed's barrier), warm up, time in
// slices, verify. The ranks swap their verification verdicts so the
// initiator's record covers both receive buffers. A stop agreed between
// slices abandons the size: `stopped` says why and the result is empty.
SizeResult measure_size(Transport& t, const PairContext& ctx, const Options& o, std::uint64_t bytes,
                        StopReason& stopped) {
  t.prepare(bytes, pattern_seed(o, ctx.initiator, bytes));
  swap_text(ctx, kTagSync, "");
  std::vector<double> last;
  if (o.warmup > 0) last = t.run(o.mode, bytes, o.warmup, o.window);
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(o.loop_count));
  while (static_cast<int>(times.size()) < o.loop_count) {
    int reps = slice_length(last, o.loop_count - static_cast<int>(times.size()));
    stopped = agree_slice(ctx, reps);
    if (stopped != StopReason::none) return SizeResult{};
    last = t.run(o.mode, bytes, reps, o.window);
    times.insert(times.end(), last.begin(), last.end());
  }
  const std::string mine = check_received(t, o, ctx.initiator, bytes);
  const std::string theirs = swap_text(ctx, kTagVerify, mine);
  if (!ctx.initiator) return SizeResult{};
  SizeResult s = summarize_size(o.mode, bytes, o.window, times);  // the initiator's clock
  s.verify_error = !mine.empty() ? mine : theirs;
  s.verified = s.verify_error.empty();
  return s;
}

// Both sides' account of how the path moves data (the initiator's is reported).
std::string describe_path(const PairContext& ctx, const Transport& t) {
  const std::string mine = t.describe();
  const std::string theirs = swap_text(ctx, kTagDescribe, mine);
  if (mine == theirs && !mine.empty()) return fmt::format("both ranks: {}", mine);
  std::string out;
  if (!mine.empty()) out = fmt::format("rank {}: {}", ctx.comm->rank(), mine);
  if (!theirs.empty()) out += fmt::format("{}rank {}: {}", out.empty() ? "" : "; ", ctx.peer, theirs);
  return out;
}

// The pair's vote before a size (comm::Vote), the initiator's word first.
comm::Vote handshake(const PairContext& ctx, const comm::Vote& mine) {
  const comm::Vote theirs = comm::vote_from_wire(swap_text(ctx, kTagStatus, comm::vote_to_wire(mine)),
                                                 rank_prefix(ctx.peer));
  return ctx.initiator ? comm::combine(mine, theirs) : comm::combine(theirs, mine);
}

// This side's vote before measuring `bytes`: stop request, time limit
// (decided by the initiator), the fault hook (fail_check: the data check
// of this size fails).
comm::Vote local_state(const PairContext& ctx, const PairResult& r, std::uint64_t bytes, RunControl* control) {
  comm::Vote mine;
  mine.stop = polled_stop();
  if (mine.stop != StopReason::none || control == nullptr) return mine;
  const std::string key = std::to_string(bytes);
  const CellCost next{fmt::format("r{}-r{}", r.rank_a, r.rank_b), static_cast<double>(bytes), 0};
  if (ctx.initiator && control->decide(key, next) == RunControl::Decision::over_time) {
    mine.skip = true;
    return mine;
  }
  const FaultKind fault = control->fault({key});
  mine.error = comm::error_of([&] { inject_fault(fault, fmt::format("rank {} at {} bytes", ctx.comm->rank(), bytes)); });
  mine.fail_check = fault == FaultKind::verify;
  mine.stop = stop_requested();  // an injected signal is seen at once
  return mine;
}

// Every size in turn, each preceded by the handshake. A stop ends the loop
// (the remaining sizes are not run); a failure agreed in the handshake
// marks that size and the loop goes on.
void measure_sizes(Transport& t, const PairContext& ctx, const Options& o, const std::vector<std::uint64_t>& sizes,
                   RunControl* control, const Observer& obs, PairResult& r) {
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::uint64_t bytes = sizes[i];
    if (ctx.initiator && obs.size_started) obs.size_started(r, bytes, i, sizes.size());
    // Both ranks of the pair stop at the same point: here, or between two
    // slices of this size (which is then not run either).
    const auto stop_here = [&](StopReason why) {
      acknowledge_stop();
      r.stop = why;
      r.not_run.insert(r.not_run.end(), sizes.begin() + static_cast<std::ptrdiff_t>(i), sizes.end());
    };
    const comm::Vote both = handshake(ctx, local_state(ctx, r, bytes, control));
    if (both.stop != StopReason::none) return stop_here(both.stop);
    if (both.skip) {
      r.not_run.push_back(bytes);
      continue;
    }
    const auto t0 = std::chrono::steady_clock::now();
    SizeResult s;
    if (both.error) {
      s.bytes = bytes;
      s.error = both.error->what();
      s.error_kind = both.error->kind();
    } else {
      StopReason stopped = StopReason::none;
      s = measure_size(t, ctx, o, bytes, stopped);
      if (stopped != StopReason::none) return stop_here(stopped);
      if (both.fail_check && ctx.initiator) {
        s.verified = false;
        s.verify_error = "injected fault (XFERBENCH_FAULT)";
      }
    }
    r.sizes.push_back(std::move(s));
    if (ctx.initiator && obs.size_done) obs.size_done(r, r.sizes.back());
    if (control != nullptr && !both.error)
      control->after_cell(CellCost{fmt::format("r{}-r{}", r.rank_a, r.rank_b), static_cast<double>(bytes),
                                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()});
  }
}

PairResult measure_pair(comm::Communicator& c, const Options& o, const std::vector<RankInfo>& infos, Pair pair,
                        const Environment& env, const Observer& obs, RunControl* control) {
  const RankInfo& a = infos.at(pair.first);
  const RankInfo& b = infos.at(pair.second);
  PairResult r;
  r.rank_a = a.rank;
  r.rank_b = b.rank;
  r.host_a = a.host;
  r.host_b = b.host;
  r.gpu_a = a.gpu_as_dev1;
  r.gpu_b = b.gpu_as_dev2;
  PairContext ctx;
  ctx.comm = &c;
  ctx.initiator = c.rank() == a.rank;
  ctx.peer = ctx.initiator ? b.rank : a.rank;
  ctx.my_device = ctx.initiator ? r.gpu_a : r.gpu_b;
  ctx.peer_device = ctx.initiator ? r.gpu_b : r.gpu_a;
  ctx.timeout = timeout_of(o);
  ctx.ll_max_bytes = o.ll_max_bytes;
  ctx.stage_chunk_bytes = o.stage_chunk_bytes;
  ctx.echo = o.mode == Mode::pingpong && o.buffers == Buffers::echo;
  ctx.same_host = a.host == b.host;
  const auto sizes = message_sizes(o);
  ctx.max_bytes = sizes.back();
  try {
    // Both ranks decide from the same announcements, so no exchange is needed.
    const TransportKind kind =
        choose_transport(o.transport, a, r.gpu_a, b, r.gpu_b, shm_layout(ctx.ll_max_bytes, ctx.max_bytes, true).total);
    r.transport = to_string(kind);
    std::unique_ptr<Transport> t;
    checkpointed(ctx, [&] { t = env.make_transport(kind, ctx); });
    checkpointed(ctx, [&] { t->connect(); });
    r.path = describe_path(ctx, *t);
    if (ctx.initiator && obs.pair_started) obs.pair_started(r);
    measure_sizes(*t, ctx, o, sizes, control, obs, r);
    // Neither rank frees memory the other may still have mapped (ipc).
    checkpointed(ctx, [] {});
  } catch (const Error& e) {
    // The sizes measured before the failure are kept.
    r.error = e.what();
    r.error_kind = e.kind();
  } catch (const std::bad_alloc&) {
    r.error = fmt::format("rank {}: out of host memory for {} repetitions (--loop-count) of up to {} bytes",
                          c.rank(), std::max(o.loop_count, o.warmup), ctx.max_bytes);
    r.error_kind = ErrorKind::resources;
  }
  return r;
}

// Collective: the stop every rank agrees on after a round (a signal first).
// Polled also when this rank's pair already stopped: a signal it saw
// without a poll (as a size started) is passed on here to the other pairs
// (StopRelay), or they would measure on while this rank waits for them.
StopReason agree_stop(comm::Communicator& c, StopReason seen, comm::Seconds timeout) {
  const StopReason polled = polled_stop();
  comm::Vote mine;
  mine.stop = seen == StopReason::none ? polled : seen;
  const StopReason out = comm::agree_votes(c, mine, timeout).stop;
  if (out != StopReason::none) acknowledge_stop();
  return out;
}

void set_completion(Result& result, StopReason stop, const std::vector<std::string>& pairs_not_run) {
  Completion& c = result.completion;
  c.stop = stop;
  for (const auto& p : result.pairs) {
    if (c.stop == StopReason::none && p.stop != StopReason::none) c.stop = p.stop;
    for (auto bytes : p.not_run) c.not_run.push_back(fmt::format("r{}-r{} @ {} B", p.rank_a, p.rank_b, bytes));
  }
  c.not_run.insert(c.not_run.end(), pairs_not_run.begin(), pairs_not_run.end());
  settle(c, "size");
}

std::vector<std::vector<Pair>> schedule(const comm::Communicator& c, const Options& o) {
  if (o.all_pairs) return round_robin(c.size());
  if (c.size() != 2) {
    fail(ErrorKind::usage, fmt::format("pingpong without --all-pairs needs exactly 2 ranks, got {}; "
                                       "use --all-pairs to measure every pair of {} ranks",
                                       c.size(), c.size()));
  }
  return {{Pair{0, 1}}};
}

}  // namespace

PairResult measure_one_pair(comm::Communicator& comm, const Options& options, const std::vector<RankInfo>& infos,
                            std::pair<int, int> pair, const Environment& env, RunControl* control) {
  return measure_pair(comm, options, infos, pair, env, Observer{}, control);
}

Result run(comm::Communicator& comm, const Options& options, const Environment& env, const Observer& observer,
           RunControl* control) {
  validate(options);
  const auto rounds = schedule(comm, options);
  const auto infos = announce(comm, options.cuda_aware, timeout_of(options),
                              [&](RankInfo& info) { local_gpus(info, comm, options, env); });
  // --all-pairs: a signal to one rank stops the other pairs of the round
  // within a slice too (not only at the round's end): every rank relays
  // its signal to the others, looked at wherever this rank looks for a stop.
  std::optional<comm::StopRelay> relay;
  std::optional<StopPoll> poll;
  if (options.all_pairs && comm.size() > 2) {
    relay.emplace(comm, "pingpong", comm::StopRelay::Hooks{}, true);
    poll.emplace([&relay] { relay->poll(); });
  }
  std::vector<PairResult> mine;
  StopReason stop = StopReason::none;
  std::vector<std::string> pairs_not_run;
  for (const auto& round : rounds) {
    if (stop != StopReason::none) {
      for (const Pair& p : round) pairs_not_run.push_back(fmt::format("r{}-r{}", p.first, p.second));
      continue;
    }
    StopReason seen = StopReason::none;
    for (const Pair& p : round) {
      if (p.first != comm.rank() && p.second != comm.rank()) continue;
      PairResult r = measure_pair(comm, options, infos, p, env, observer, control);
      if (!r.error.empty() && r.error_kind == ErrorKind::timeout) throw Error(r.error_kind, r.error);
      seen = r.stop;
      if (p.first == comm.rank()) mine.push_back(std::move(r));
    }
    // Rounds do not overlap, so one pair's traffic never skews another's;
    // the rounds' boundary is also where every rank learns of a stop.
    if (options.all_pairs) stop = agree_stop(comm, seen, timeout_of(options));
    else stop = seen;
  }
  poll.reset();
  if (relay) relay->last_word();
  Result result = result_header(options, comm.size());
  for (const auto& wire : comm.allgather(records::pairs_to_wire(mine), timeout_of(options))) {
    for (auto& p : records::pairs_from_wire(wire)) result.pairs.push_back(std::move(p));
  }
  if (relay) relay->close(timeout_of(options));
  std::sort(result.pairs.begin(), result.pairs.end(),
            [](const PairResult& x, const PairResult& y) { return std::tie(x.rank_a, x.rank_b) < std::tie(y.rank_a, y.rank_b); });
  // A two-rank run that failed before measuring anything has nothing to keep.
  if (!options.all_pairs && !result.pairs.empty() && !result.pairs[0].error.empty() && result.pairs[0].sizes.empty() &&
      result.pairs[0].stop == StopReason::none) {
    throw Error(result.pairs[0].error_kind, result.pairs[0].error);
  }
  set_completion(result, stop, pairs_not_run);
  return result;
}

}  // namespace xb::pingpong
