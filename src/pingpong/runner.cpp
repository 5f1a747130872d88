#include "pingpong/runner.hpp"

#include <algorithm>
#include <new>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "pingpong/buffers.hpp"
#include "pingpong/nccl_api.hpp"
#include "pingpong/pattern.hpp"
#include "pingpong/schedule.hpp"
#include "pingpong/select.hpp"
#include "pingpong/transport.hpp"

namespace xb::pingpong {

Environment default_environment() {
  return Environment{device_count_or_zero, [] { return nccl::available(); }, gpu_identity,
                     [](TransportKind k, const PairContext& ctx) { return make_transport(k, ctx); }};
}

namespace {

comm::Seconds timeout_of(const Options& o) { return comm::Seconds(o.timeout_s); }

comm::GpuBuffers effective_gpu_buffers(const Options& o, const comm::Communicator& c) {
  switch (o.cuda_aware) {
    case CudaAware::yes: return comm::GpuBuffers::yes;
    case CudaAware::no: return comm::GpuBuffers::no;
    case CudaAware::automatic: break;
  }
  return c.gpu_buffers();
}

// This rank's announcement. GPUs and NCCL are only probed when a GPU
// endpoint is asked for, so host-only runs never initialize CUDA.
RankInfo local_info(const comm::Communicator& c, const Options& o, const Environment& env) {
  RankInfo info;
  info.rank = c.rank();
  info.host = c.host_name();
  info.local_rank = c.local_rank();
  info.mpi_gpu = effective_gpu_buffers(o, c);
  const bool holds_dev1 = o.all_pairs || c.rank() == 0;
  const bool holds_dev2 = o.all_pairs || c.rank() == 1;
  const bool wants_gpu = (holds_dev1 && o.dev1.gpu) || (holds_dev2 && o.dev2.gpu);
  if (!wants_gpu) return info;
  const int count = env.device_count();
  if (holds_dev1) info.gpu_as_dev1 = resolve_device(o.dev1, info.local_rank, count);
  if (holds_dev2) info.gpu_as_dev2 = resolve_device(o.dev2, info.local_rank, count);
  if (info.gpu_as_dev1 >= 0) {
    const GpuIdentity id = env.gpu_identity(info.gpu_as_dev1);
    info.bus_as_dev1 = id.bus;
    info.peers_as_dev1 = id.peers;
  }
  if (info.gpu_as_dev2 >= 0) {
    const GpuIdentity id = env.gpu_identity(info.gpu_as_dev2);
    info.bus_as_dev2 = id.bus;
    info.peers_as_dev2 = id.peers;
  }
  info.nccl = env.nccl_available();
  return info;
}

std::vector<RankInfo> announce(comm::Communicator& c, const Options& o, const Environment& env) {
  RankInfo mine;
  std::optional<Error> err;
  try {
    mine = local_info(c, o, env);
  } catch (const Error& e) {
    err = e;
  }
  comm::agree_or_throw(c, err ? &*err : nullptr, timeout_of(o));
  std::vector<RankInfo> all;
  for (const auto& text : c.allgather(to_json(mine), timeout_of(o))) all.push_back(rank_info_from_json(text));
  return all;
}

// Both ranks of a pair swap their local status; if either failed, both
// throw the same error, so neither waits for a peer that gave up.
void pair_checkpoint(const PairContext& ctx, const std::optional<Error>& mine) {
  const std::string out = mine ? fmt::format("{}\n{}", static_cast<int>(mine->kind()), mine->what()) : "";
  ctx.comm->send_string(ctx.peer, kTagStatus, out, ctx.timeout);
  const std::string in = ctx.comm->recv_string(ctx.peer, kTagStatus, ctx.timeout);
  if (mine) throw Error(mine->kind(), fmt::format("rank {}: {}", ctx.comm->rank(), mine->what()));
  if (!in.empty()) {
    const auto nl = in.find('\n');
    throw Error(static_cast<ErrorKind>(std::stoi(in.substr(0, nl))),
                fmt::format("rank {}: {}", ctx.peer, in.substr(nl + 1)));
  }
}

template <typename Fn>
void checkpointed(const PairContext& ctx, Fn&& step) {
  std::optional<Error> err;
  try {
    step();
  } catch (const Error& e) {
    err = e;
  } catch (const std::bad_alloc&) {
    err = Error(ErrorKind::resources, fmt::format("out of host memory while setting up buffers for messages of up "
                                                  "to {} bytes",
                                                  ctx.max_bytes));
  }
  pair_checkpoint(ctx, err);
}

std::uint64_t pattern_seed(const Options& o, bool initiator, std::uint64_t bytes) {
  return (o.seed * 1000003ULL + bytes) * 2 + (initiator ? 0 : 1);
}

// Which pattern this rank's receive buffer must hold after a run, if any.
std::optional<std::uint64_t> expected_seed(const Options& o, bool initiator, std::uint64_t bytes) {
  switch (o.mode) {
    case Mode::pingpong: return pattern_seed(o, true, bytes);  // the initiator's pattern, echoed
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
  const std::size_t bad = first_mismatch(data.data(), data.size(), *seed);
  if (bad == data.size()) return "";
  return fmt::format("rank {} received wrong data at byte offset {}", initiator ? "initiator" : "responder", bad);
}

// One size: fill, sync the pair (the seed's barrier), warm up, time, verify.
// The responder sends its verification verdict so the initiator's record
// covers both receive buffers.
SizeResult measure_size(Transport& t, const PairContext& ctx, const Options& o, std::uint64_t bytes) {
  t.prepare(bytes, pattern_seed(o, ctx.initiator, bytes));
  const char sync = 1;
  char got = 0;
  if (ctx.initiator) {
    ctx.comm->send(ctx.peer, kTagSync, &sync, 1, ctx.timeout);
    ctx.comm->recv(ctx.peer, kTagSync, &got, 1, ctx.timeout);
  } else {
    ctx.comm->recv(ctx.peer, kTagSync, &got, 1, ctx.timeout);
    ctx.comm->send(ctx.peer, kTagSync, &sync, 1, ctx.timeout);
  }
  if (o.warmup > 0) t.run(o.mode, bytes, o.warmup, o.window);
  const auto times = t.run(o.mode, bytes, o.loop_count, o.window);
  const std::string mine = check_received(t, o, ctx.initiator, bytes);
  if (!ctx.initiator) {
    ctx.comm->send_string(ctx.peer, kTagVerify, mine, ctx.timeout);
    return SizeResult{};
  }
  const std::string theirs = ctx.comm->recv_string(ctx.peer, kTagVerify, ctx.timeout);
  SizeResult s = summarize_size(o.mode, bytes, o.window, times);  // the initiator's clock
  s.verify_error = !mine.empty() ? mine : theirs;
  s.verified = s.verify_error.empty();
  return s;
}

// Both sides' account of how the path moves data, as the initiator reports it.
std::string describe_path(const PairContext& ctx, const Transport& t) {
  const std::string mine = t.describe();
  if (!ctx.initiator) {
    ctx.comm->send_string(ctx.peer, kTagDescribe, mine, ctx.timeout);
    return mine;
  }
  const std::string theirs = ctx.comm->recv_string(ctx.peer, kTagDescribe, ctx.timeout);
  if (mine == theirs && !mine.empty()) return fmt::format("both ranks: {}", mine);
  std::string out;
  if (!mine.empty()) out = fmt::format("rank {}: {}", ctx.comm->rank(), mine);
  if (!theirs.empty()) out += fmt::format("{}rank {}: {}", out.empty() ? "" : "; ", ctx.peer, theirs);
  return out;
}

PairResult measure_pair(comm::Communicator& c, const Options& o, const std::vector<RankInfo>& infos, Pair pair,
                        const Environment& env, const Observer& obs) {
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
  const auto sizes = message_sizes(o);
  ctx.max_bytes = sizes.back();
  try {
    // Both ranks decide from the same announcements, so no exchange is needed.
    const TransportKind kind = choose_transport(o.transport, a, r.gpu_a, b, r.gpu_b);
    r.transport = to_string(kind);
    std::unique_ptr<Transport> t;
    checkpointed(ctx, [&] { t = env.make_transport(kind, ctx); });
    checkpointed(ctx, [&] { t->connect(); });
    r.path = describe_path(ctx, *t);
    if (ctx.initiator && obs.pair_started) obs.pair_started(r);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      if (ctx.initiator && obs.size_started) obs.size_started(r, sizes[i], i, sizes.size());
      r.sizes.push_back(measure_size(*t, ctx, o, sizes[i]));
      if (ctx.initiator && obs.size_done) obs.size_done(r, r.sizes.back());
    }
    // Neither rank frees memory the other may still have mapped (ipc).
    checkpointed(ctx, [] {});
  } catch (const Error& e) {
    r.error = e.what();
    r.error_kind = e.kind();
    r.sizes.clear();
  } catch (const std::bad_alloc&) {
    r.error = fmt::format("rank {}: out of host memory for {} repetitions (--loop-count) of up to {} bytes",
                          c.rank(), std::max(o.loop_count, o.warmup), ctx.max_bytes);
    r.error_kind = ErrorKind::resources;
    r.sizes.clear();
  }
  return r;
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

Result run(comm::Communicator& comm, const Options& options, const Environment& env, const Observer& observer) {
  validate(options);
  const auto rounds = schedule(comm, options);
  const auto infos = announce(comm, options, env);
  std::vector<PairResult> mine;
  for (const auto& round : rounds) {
    for (const Pair& p : round) {
      if (p.first != comm.rank() && p.second != comm.rank()) continue;
      PairResult r = measure_pair(comm, options, infos, p, env, observer);
      if (!r.error.empty() && r.error_kind == ErrorKind::timeout) throw Error(r.error_kind, r.error);
      if (p.first == comm.rank()) mine.push_back(std::move(r));
    }
    // Rounds do not overlap, so one pair's traffic never skews another's.
    if (options.all_pairs) comm.barrier(timeout_of(options));
  }
  Result result = result_header(options, comm.size());
  for (const auto& wire : comm.allgather(pairs_to_wire(mine), timeout_of(options))) {
    for (auto& p : pairs_from_wire(wire)) result.pairs.push_back(std::move(p));
  }
  std::sort(result.pairs.begin(), result.pairs.end(),
            [](const PairResult& x, const PairResult& y) { return std::tie(x.rank_a, x.rank_b) < std::tie(y.rank_a, y.rank_b); });
  if (!options.all_pairs && !result.pairs.empty() && !result.pairs[0].error.empty()) {
    throw Error(result.pairs[0].error_kind, result.pairs[0].error);
  }
  return result;
}

}  // namespace xb::pingpong
