#include "fabric/runner.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <sstream>

#include <fmt/format.h>

#include "base/stop.hpp"
#include "fabric/attribution.hpp"

namespace xb::fabric {
namespace {

// Every rank's buffers: its GPU (by node-local rank, or the id asked for) or host memory.
void announce_gpus(pingpong::RankInfo& info, const Options& o, const pingpong::Environment& env) {
  if (!o.buffers.gpu) return;
  const int gpu = pingpong::resolve_device(o.buffers, info.local_rank, env.device_count());
  info.gpu_as_dev1 = info.gpu_as_dev2 = gpu;
  pingpong::GpuIdentity id = env.gpu_identity(gpu);
  info.bus_as_dev1 = info.bus_as_dev2 = id.bus;
  info.peers_as_dev1 = info.peers_as_dev2 = id.peers;
  info.nccl = env.nccl_available();
}

// Nodes in the order of their first rank; a node's rails by node-local rank.
std::vector<Node> nodes_of(const std::vector<pingpong::RankInfo>& infos) {
  std::vector<Node> nodes;
  std::vector<std::vector<std::pair<int, int>>> members;  // (local rank, rank)
  for (const auto& info : infos) {
    auto it = std::find_if(nodes.begin(), nodes.end(), [&](const Node& n) { return n.name == info.host; });
    if (it == nodes.end()) {
      nodes.push_back(Node{info.host, {}, {}});
      members.emplace_back();
      it = nodes.end() - 1;
    }
    members[static_cast<std::size_t>(it - nodes.begin())].emplace_back(info.local_rank, info.rank);
  }
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    std::sort(members[n].begin(), members[n].end());
    for (const auto& [local, rank] : members[n]) {
      nodes[n].ranks.push_back(rank);
      nodes[n].gpus.push_back(infos[static_cast<std::size_t>(rank)].gpu_as_dev1);
    }
  }
  return nodes;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

void poll_stop() { (void)polled_stop(); }

}  // namespace

Session::Session(comm::Communicator& comm, const Options& options, Hooks hooks)
    : comm_(comm), options_(options), hooks_(std::move(hooks)) {
  validate(options_);
  infos_ = pingpong::announce(comm_, options_.cuda_aware, comm::Seconds(options_.timeout_s),
                              [&](pingpong::RankInfo& info) { announce_gpus(info, options_, hooks_.env); });
  header_.options = options_;
  header_.nodes = nodes_of(infos_);
  header_.world_size = comm_.size();
  header_.start_time_utc = utc_now();
  std::vector<int> rails_of;
  where_.assign(static_cast<std::size_t>(comm_.size()), {-1, -1});
  for (std::size_t n = 0; n < header_.nodes.size(); ++n) {
    const auto& ranks = header_.nodes[n].ranks;
    rails_of.push_back(static_cast<int>(ranks.size()));
    for (std::size_t r = 0; r < ranks.size(); ++r)
      where_[static_cast<std::size_t>(ranks[r])] = {static_cast<int>(n), static_cast<int>(r)};
  }
  if (header_.nodes.size() < 2)
    fail(ErrorKind::usage, fmt::format("all {} ranks are on one node ({}): a fabric needs ranks on 2 or more nodes "
                                       "(one launch across the nodes, one rank per GPU)",
                                       comm_.size(), header_.nodes.at(0).name));
  const NodeSchedule schedule = node_schedule(static_cast<int>(header_.nodes.size()), options_.rounds, options_.seed);
  rounds_ = slot_rounds(schedule, rails_of, options_.rails_one);
  header_.plan = make_plan(schedule, rails_of, options_);
  // Collective too (the relay's roles): a rank that dies from here on is
  // one the others survive.
  relay_ = std::make_unique<comm::StopRelay>(comm_, "fabric run", comm::StopRelay::Hooks{}, true);
  link_ = std::make_unique<Link>(comm_, silence_of(options_), options_.timeout_s, header_.nodes.at(0).name);
}

Session::~Session() = default;

Result Session::run() {
  const auto t0 = std::chrono::steady_clock::now();
  Result r;
  {
    StopPoll poll([this] {
      relay_->poll();
      link_->beat();
    });
    if (comm_.rank() == 0) {
      r = coordinate();
    } else {
      work();
      r = header_;
    }
  }
  relay_->last_word();
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::vector<LegReport> Session::my_legs(int round, int stage, const std::vector<bool>& lost) {
  SlotContext ctx{&comm_, &options_, &infos_, &header_.nodes, hooks_.env, hooks_.faults, hooks_.control,
                  hooks_.nccl_log};
  if (stage == 0) runs_.clear();
  std::vector<LegReport> out;
  const auto& slots = rounds_[static_cast<std::size_t>(round)];
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const Slot& s = slots[i];
    const int ra = header_.nodes[static_cast<std::size_t>(s.a)].ranks[static_cast<std::size_t>(s.rail)];
    const int rb = header_.nodes[static_cast<std::size_t>(s.b)].ranks[static_cast<std::size_t>(s.rail)];
    if (ra != comm_.rank() && rb != comm_.rank()) continue;
    if (lost[static_cast<std::size_t>(ra)] || lost[static_cast<std::size_t>(rb)]) continue;  // rank 0 records why
    if (stage == 0) runs_.emplace(i, begin_slot(ctx, s, round, ordinal_++));
    const auto run = runs_.find(i);
    if (run == runs_.end() || run->second.done) continue;
    out.push_back(measure_stage(ctx, s, static_cast<int>(i), run->second, stage));
  }
  return out;
}

void Session::work() {
  std::vector<bool> lost(static_cast<std::size_t>(comm_.size()), false);
  while (true) {
    const std::string order = link_->wait_order(poll_stop);
    std::istringstream in(order);
    std::string word, stage_word;
    int round = -1, stage = -1;
    in >> word >> round >> stage_word >> stage;
    if (word != "round" || round < 0 || round >= static_cast<int>(rounds_.size())) break;  // "end"
    if (stage_word != "stage" || stage < 0 || stage >= kStages) break;
    for (int r; in >> r;) lost.at(static_cast<std::size_t>(r)) = true;
    const auto legs = my_legs(round, stage, lost);
    link_->send_report(legs_to_wire(round, legs), poll_stop);
  }
  if (polled_stop() != StopReason::none) acknowledge_stop();
}

}  // namespace xb::fabric
