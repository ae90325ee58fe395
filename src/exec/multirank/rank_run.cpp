// One rank's share of a multi-process run (see rank_run.h).
#include "exec/multirank/rank_run.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "exec/exec_error.h"
#include "exec/multirank/unsupported.h"
#include "exec/op_eval.h"
#include "support/internal_error.h"

namespace fc::exec::multirank {
namespace {

int64_t indexIn(const std::vector<int64_t>& v, int64_t x) {
  auto it = std::find(v.begin(), v.end(), x);
  return it == v.end() ? -1 : it - v.begin();
}

CommBuffer bufOf(HostTensor& t) { return CommBuffer{t.data(), t.numel(), t.dtype()}; }

void copyBuffer(const CommBuffer& from, CommBuffer& to) {
  FC_CHECK(from.count == to.count, "in-place collective with buffers of different sizes");
  std::memcpy(to.data, from.data, static_cast<size_t>(from.count) * sizeof(double));
}

OpContext hostContext(const Fusion& f, ScalarValues& sv, MemoryBudget* budget) {
  OpContext c{&f, &sv, Flavour::Faithful, budget, nullptr};
  const Fusion* fp = &f;
  c.localize = [fp](TensorId t, const Shape& g) {
    return localShape(g, shardDims(*fp, t), std::string(fp->tensorName(t)));
  };
  return c;
}

// --- watchdog state
std::atomic<int64_t> g_deadline_ns{0};  // 0: disarmed
std::atomic<bool> g_final{false};       // armFinalWatchdog: no longer disarmed
std::mutex g_what_mu;
std::string g_what;
std::once_flag g_thread_once;

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

}  // namespace

Fault faultFromEnvironment(std::string* error) {
  Fault f;
  const char* v = std::getenv("FC_FAULT_INJECT");
  if (!v || !*v) return f;
  std::string s(v);
  // rank:R:KIND
  size_t a = s.find(':'), b = a == std::string::npos ? a : s.find(':', a + 1);
  std::string kind = b == std::string::npos ? "" : s.substr(b + 1);
  char* end = nullptr;
  long long r = a == std::string::npos ? -1 : std::strtoll(s.c_str() + a + 1, &end, 10);
  if (s.compare(0, a, "rank") != 0 || b == std::string::npos || r < 0 || end != s.c_str() + b) {
    *error = "FC_FAULT_INJECT='" + s + "' is not rank:R:die|hang|nccl-error";
    return f;
  }
  f.rank = r;
  if (kind == "die")
    f.kind = Fault::Die;
  else if (kind == "hang")
    f.kind = Fault::Hang;
  else if (kind == "nccl-error")
    f.kind = Fault::CommError;
  else
    *error = "FC_FAULT_INJECT: unknown fault '" + kind + "' (die, hang, nccl-error)";
  return f;
}

// ------------------------------------------------------------ HubCommunicator

HubCommunicator::HubCommunicator(Links& links, std::vector<int64_t> team, double timeout_s, bool inject_error)
    : links_(links), team_(std::move(team)), timeout_s_(timeout_s), inject_error_(inject_error) {
  std::vector<int64_t> sorted = team_;
  std::sort(sorted.begin(), sorted.end());
  for (size_t q = 0; q < sorted.size(); ++q)
    if (sorted[q] != static_cast<int64_t>(q) || static_cast<int64_t>(sorted.size()) != links_.world)
      failUnsupportedInMultiProcess("a collective over a subset of the ranks");
}

void HubCommunicator::exchange(const CommBuffer& send, CommBuffer& recv, const Apply& apply) {
  if (inject_error_)
    fail("rank " + std::to_string(links_.rank) + ": injected communicator error (FC_FAULT_INJECT)", {},
         DiagCode::RankFailed);
  auto deadline = deadlineAfter(timeout_s_);
  WatchdogScope watch(timeout_s_, "a host collective");
  const uint64_t sbytes = static_cast<uint64_t>(send.count) * sizeof(double);
  const uint64_t rbytes = static_cast<uint64_t>(recv.count) * sizeof(double);
  if (links_.rank != 0) {
    Link& l = links_.links[0];
    l.send(Tag::Data, send.data, sbytes, deadline);
    std::string r = l.recv(Tag::Data, deadline);
    if (r.size() != rbytes)
      fail("rank 0 answered a collective with the wrong size", {}, DiagCode::RankFailed);
    std::memcpy(recv.data, r.data(), rbytes);
    return;
  }
  const size_t R = team_.size();
  std::vector<std::vector<double>> sv(R), rv(R, std::vector<double>(static_cast<size_t>(recv.count)));
  for (size_t q = 0; q < R; ++q) {
    int64_t r = team_[q];
    if (r == 0) {
      const double* p = static_cast<const double*>(send.data);
      sv[q].assign(p, p + send.count);
      continue;
    }
    std::string s = links_.links[r].recv(Tag::Data, deadline);
    if (s.size() != sbytes)
      fail("rank " + std::to_string(r) + " contributed " + std::to_string(s.size() / sizeof(double)) +
               " elements to a collective, rank 0 " + std::to_string(send.count),
           {}, DiagCode::RankFailed);
    sv[q].resize(static_cast<size_t>(send.count));
    std::memcpy(sv[q].data(), s.data(), sbytes);
  }
  std::vector<CommBuffer> sb, rb;
  for (size_t q = 0; q < R; ++q) {
    sb.push_back(CommBuffer{sv[q].data(), send.count, send.dtype});
    rb.push_back(CommBuffer{rv[q].data(), recv.count, recv.dtype});
  }
  SimulatedCommunicator sim(static_cast<int64_t>(R));
  apply(sim, sb, rb);
  for (size_t q = 0; q < R; ++q) {
    int64_t r = team_[q];
    if (r == 0)
      std::memcpy(recv.data, rv[q].data(), rbytes);
    else
      links_.links[r].send(Tag::Data, rv[q].data(), rbytes, deadline);
  }
}

void HubCommunicator::allreduce(std::span<CommBuffer> bufs, ReduceOp op) {
  FC_CHECK(bufs.size() == 1, "one buffer per process");
  exchange(bufs[0], bufs[0], [op](Communicator& sim, std::vector<CommBuffer>& s, std::vector<CommBuffer>& r) {
    for (size_t q = 0; q < s.size(); ++q) copyBuffer(s[q], r[q]);
    sim.allreduce(r, op);
  });
}

void HubCommunicator::reduceScatter(std::span<const CommBuffer> send, std::span<CommBuffer> recv,
                                    ReduceOp op) {
  FC_CHECK(send.size() == 1 && recv.size() == 1, "one buffer per process");
  exchange(send[0], recv[0], [op](Communicator& sim, std::vector<CommBuffer>& s, std::vector<CommBuffer>& r) {
    sim.reduceScatter(s, r, op);
  });
}

void HubCommunicator::reduce(std::span<CommBuffer> bufs, int64_t root, ReduceOp op) {
  FC_CHECK(bufs.size() == 1, "one buffer per process");
  exchange(bufs[0], bufs[0],
           [op, root](Communicator& sim, std::vector<CommBuffer>& s, std::vector<CommBuffer>& r) {
             for (size_t q = 0; q < s.size(); ++q) copyBuffer(s[q], r[q]);
             sim.reduce(r, root, op);
           });
}

void HubCommunicator::allgather(std::span<const CommBuffer> send, std::span<CommBuffer> recv) {
  FC_CHECK(send.size() == 1 && recv.size() == 1, "one buffer per process");
  exchange(send[0], recv[0], [](Communicator& sim, std::vector<CommBuffer>& s, std::vector<CommBuffer>& r) {
    sim.allgather(s, r);
  });
}

void HubCommunicator::broadcast(std::span<CommBuffer> bufs, int64_t root) {
  FC_CHECK(bufs.size() == 1, "one buffer per process");
  exchange(bufs[0], bufs[0],
           [root](Communicator& sim, std::vector<CommBuffer>& s, std::vector<CommBuffer>& r) {
             for (size_t q = 0; q < s.size(); ++q) copyBuffer(s[q], r[q]);
             sim.broadcast(r, root);
           });
}

void HubCommunicator::gather(std::span<const CommBuffer>, CommBuffer, int64_t) {
  failUnsupportedInMultiProcess("Gather");
}
void HubCommunicator::scatter(CommBuffer, int64_t, std::span<CommBuffer>) {
  failUnsupportedInMultiProcess("Scatter");
}
void HubCommunicator::sendRecv(CommBuffer, int64_t, CommBuffer, int64_t) {
  failUnsupportedInMultiProcess("SendRecv");
}

// ------------------------------------------------------------ one rank's communication

std::optional<HostTensor> communicateOnRank(const Fusion& f, const World& world, const Segment& s, int64_t me,
                                            const HostTensor* input, ScalarValues& sv, MemoryBudget* budget,
                                            const TeamCommFactory& make_comm, const Fault& fault,
                                            SegmentRun& rec) {
  CommunicationExpr ce = communicationExpr(f, s);
  ExprId e = ce.expr;
  const Expr& ex = f.exprs[e];
  const Place& where = ce.where;
  TensorId I = ce.in, O = ce.out;
  std::vector<int64_t> rin = world.ranksOf(I), rout = world.ranksOf(O), tm = rin;
  for (int64_t r : rout)
    if (indexIn(tm, r) < 0) tm.push_back(r);
  for (TensorId t : {I, O}) {
    MeshId m = f.tensors[t].mesh;
    if (m != kNone && m < f.meshes.size() && f.meshes[m].shape.size() > 1)
      fail("communications over n-D meshes are not supported in multi-process runs yet", where,
           DiagCode::ExecutionFailed);
  }
  rec.summary = std::string(commKindName(s.comm)) + " " + std::string(f.tensorName(I)) + " -> " +
                std::string(f.tensorName(O)) + " over " + std::to_string(tm.size()) +
                " ranks (one process each)";
  if (static_cast<int64_t>(tm.size()) != world.size() || indexIn(rin, me) < 0)
    failUnsupportedInMultiProcess("a collective over a subset of the ranks", where);
  if (fault.rank == me && fault.kind == Fault::Die) {
    std::fprintf(stderr, "fusecheck: rank %lld: dying (FC_FAULT_INJECT)\n", static_cast<long long>(me));
    std::fflush(stderr);
    ::kill(::getpid(), SIGKILL);
  }
  if (fault.rank == me && fault.kind == Fault::Hang) {
    std::fprintf(stderr, "fusecheck: rank %lld: hanging (FC_FAULT_INJECT)\n", static_cast<long long>(me));
    std::fflush(stderr);
    for (;;) ::pause();
  }
  if (!input) fail("the collective's input is not available on this rank", where, DiagCode::ExecutionFailed);
  DType odt = f.tensors[O].dtype;
  std::vector<ShardDim> sin = shardDims(f, I), sout = shardDims(f, O);
  std::optional<HostTensor> result;
  auto cm = make_comm(tm);
  const int64_t R = static_cast<int64_t>(rin.size());
  switch (s.comm) {
    case CommKind::Allreduce:
    case CommKind::ReduceScatter:
    case CommKind::Reduce: {
      ReduceOp rop = collectiveReduceOp(ex.op, where);
      OpContext pc = hostContext(f, sv, budget);
      pc.localize = nullptr;  // the local part: the rank's slice of the reduced dims
      HostTensor partial = std::move(evalExpr(pc, e, {input})[0]);
      if (s.comm == CommKind::Allreduce) {
        for (int64_t r : rout)
          if (indexIn(rin, r) < 0)
            fail("Allreduce output lives on a device outside its input mesh", where,
                 DiagCode::ExecutionFailed);
        CommBuffer b = bufOf(partial);
        cm->allreduce(std::span<CommBuffer>(&b, 1), rop);
        if (indexIn(rout, me) >= 0) result = std::move(partial);
      } else if (s.comm == CommKind::Reduce) {
        if (rout.size() != 1 || indexIn(rin, rout[0]) < 0)
          fail("Reduce needs a one-device output mesh inside the input mesh", where,
               DiagCode::ExecutionFailed);
        CommBuffer b = bufOf(partial);
        cm->reduce(std::span<CommBuffer>(&b, 1), indexIn(rin, rout[0]), rop);
        if (me == rout[0]) result = std::move(partial);
      } else {
        if (sout.size() != 1)
          fail("ReduceScatter needs an output sharded on exactly one dim", where, DiagCode::ExecutionFailed);
        int64_t k = sout[0].dim;
        if (k >= partial.rank() || partial.size(k) % R != 0)
          fail("ReduceScatter: the scattered dim does not divide by the mesh size", where,
               DiagCode::ExecutionFailed);
        HostTensor send = moveToFront(partial, k);
        Shape rs = send.shape();
        rs[0] /= R;
        HostTensor recv(odt, rs, budget);
        CommBuffer sb = bufOf(send), rb = bufOf(recv);
        cm->reduceScatter(std::span<const CommBuffer>(&sb, 1), std::span<CommBuffer>(&rb, 1), rop);
        result = moveFromFront(recv, k);
      }
      break;
    }
    case CommKind::Allgather: {
      if (sin.size() != 1)
        fail("a gather needs an input sharded on exactly one dim", where, DiagCode::ExecutionFailed);
      int64_t k = sin[0].dim;
      HostTensor send = moveToFront(*input, k);
      Shape gs = send.shape();
      gs[0] *= R;
      HostTensor recv(send.dtype(), gs, budget);
      CommBuffer sb = bufOf(send), rb = bufOf(recv);
      cm->allgather(std::span<const CommBuffer>(&sb, 1), std::span<CommBuffer>(&rb, 1));
      if (indexIn(rout, me) >= 0) result = moveFromFront(recv, k);
      break;
    }
    default:
      fail(std::string(commKindName(s.comm)) + " communications are not supported in multi-process runs yet",
           where, DiagCode::ExecutionFailed);
  }
  if (result) finishOutput(*result, odt, Flavour::Faithful);
  return result;
}

// ------------------------------------------------------------ host rank

SegmentedRun runRankOnHost(const SegmentedFusion& sf, const World& world, const RunInputs& in,
                           ScalarValues& sv, MemoryBudget* budget, std::optional<uint32_t> stop_at,
                           std::vector<SegmentRun>* progress, int64_t me, const TeamCommFactory& make_comm,
                           const Fault& fault) {
  FC_CHECK(sf.fusion != nullptr, "segmented fusion without its fusion");
  const Fusion& f = *sf.fusion;
  SegmentedRun out;
  out.local.assign(f.tensors.size(), std::vector<std::optional<HostTensor>>(world.size()));
  FC_CHECK(in.values.size() == f.inputs.size(), "inputs do not match the fusion");
  for (size_t p = 0; p < f.inputs.size(); ++p)
    if (f.inputs[p].isTensor() && me < static_cast<int64_t>(in.values[p].local.size()))
      out.local[f.inputs[p].id][me] = in.values[p].local[me];
  std::vector<SegmentRun> own;
  std::vector<SegmentRun>& recs = progress ? *progress : own;
  recs = plannedRuns(sf);
  OpContext c = hostContext(f, sv, budget);
  for (size_t i = 0; i < sf.segments.size(); ++i) {
    const Segment& s = sf.segments[i];
    SegmentRun& rec = recs[i];
    if (!startSegment(recs, i, stop_at)) continue;
    if (s.kind == SegmentKind::Compute) {
      for (ExprId e : s.exprs) {
        const Expr& ex = f.exprs[e];
        Place where = Place::expr(e);
        FC_CHECK(!ex.outputs.empty(), "expr without outputs");
        std::vector<int64_t> ranks = world.ranksOf(ex.outputs[0]);
        if (std::find(ranks.begin(), ranks.end(), me) == ranks.end()) continue;
        std::vector<const HostTensor*> args;
        for (ValueRef v : ex.inputs) {
          if (!v.isTensor()) {
            args.push_back(nullptr);
            continue;
          }
          if (!out.local[v.id][me])
            fail("tensor " + std::string(f.tensorName(v.id)) + " is not available on device " +
                     std::to_string(world.devices()[me]) + " when its consumer runs",
                 where, DiagCode::ExecutionFailed);
          args.push_back(&*out.local[v.id][me]);
        }
        std::vector<HostTensor> res = evalExpr(c, e, args);
        for (size_t k = 0; k < res.size(); ++k) out.local[ex.outputs[k]][me] = std::move(res[k]);
      }
    } else {
      TensorId I = f.exprs[s.exprs.at(0)].inputs.at(0).id, O = f.exprs[s.exprs[0]].outputs.at(0);
      const HostTensor* x = out.local[I][me] ? &*out.local[I][me] : nullptr;
      if (auto y = communicateOnRank(f, world, s, me, x, sv, budget, make_comm, fault, rec))
        out.local[O][me] = std::move(*y);
    }
    rec.status = "ran";
  }
  out.segments = recs;
  return out;
}

// ------------------------------------------------------------ results to rank 0

namespace {

template <typename T>
void put(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <typename T>
T take(const std::string& s, size_t& at) {
  if (at + sizeof(T) > s.size()) fail("a rank sent truncated results", {}, DiagCode::RankFailed);
  T v;
  std::memcpy(&v, s.data() + at, sizeof v);
  at += sizeof v;
  return v;
}

}  // namespace

void gatherOutputs(Links& links, const Fusion& f, SegmentedRun& run, MemoryBudget* budget, double timeout_s) {
  auto deadline = deadlineAfter(timeout_s);
  WatchdogScope watch(timeout_s, "gathering results");
  if (links.rank != 0) {
    std::string s;
    for (size_t k = 0; k < f.outputs.size(); ++k) {
      TensorId t = f.outputs[k];
      const auto& x = run.local[t][links.rank];
      if (!x) continue;
      put<uint32_t>(s, static_cast<uint32_t>(k));
      put<uint32_t>(s, static_cast<uint32_t>(x->dtype()));
      put<uint32_t>(s, static_cast<uint32_t>(x->rank()));
      for (int64_t d : x->shape()) put<int64_t>(s, d);
      s.append(reinterpret_cast<const char*>(x->data()), static_cast<size_t>(x->numel()) * sizeof(double));
    }
    links.links[0].send(Tag::Outputs, s, deadline);
    return;
  }
  for (int64_t r = 1; r < links.world; ++r) {
    std::string s = links.links[r].recv(Tag::Outputs, deadline);
    size_t at = 0;
    while (at < s.size()) {
      auto k = take<uint32_t>(s, at);
      auto dt = take<uint32_t>(s, at);
      auto nd = take<uint32_t>(s, at);
      if (k >= f.outputs.size() || nd > 64)
        fail("rank " + std::to_string(r) + " sent malformed results", {}, DiagCode::RankFailed);
      Shape sh;
      for (uint32_t d = 0; d < nd; ++d) sh.push_back(take<int64_t>(s, at));
      HostTensor t(static_cast<DType>(dt), sh, budget);
      size_t bytes = static_cast<size_t>(t.numel()) * sizeof(double);
      if (at + bytes > s.size()) fail("a rank sent truncated results", {}, DiagCode::RankFailed);
      std::memcpy(t.data(), s.data() + at, bytes);
      at += bytes;
      run.local[f.outputs[k]][r] = std::move(t);
    }
  }
}

void reportFailure(Links& links, const std::string& message) {
  if (links.rank == 0 || links.links.empty() || !links.links[0].open()) return;
  try {
    links.links[0].send(Tag::Error, message, deadlineAfter(2));
  } catch (const ExecError&) {
    // rank 0 is gone too; the launcher reports both
  }
}

// ------------------------------------------------------------ watchdog

namespace {

void armWatchdogAt(int64_t deadline_ns, std::string what) {
  {
    std::lock_guard<std::mutex> lock(g_what_mu);
    g_what = std::move(what);
  }
  g_deadline_ns = deadline_ns;
  std::call_once(g_thread_once, [] {
    std::thread([] {
      for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        int64_t d = g_deadline_ns.load();
        if (d != 0 && nowNs() > d) {
          std::string w;
          {
            std::lock_guard<std::mutex> lock(g_what_mu);
            w = g_what;
          }
          std::fprintf(stderr, "fusecheck: watchdog: %s did not finish in time; exiting (FC0907)\n",
                       w.c_str());
          std::fflush(stderr);
          ::_exit(3);
        }
      }
    }).detach();
  });
}

}  // namespace

void armWatchdog(double seconds, std::string what) {
  constexpr double kGrace = 15;  // the wait's own deadline and abort come first
  if (g_final) return;
  armWatchdogAt(nowNs() + static_cast<int64_t>((seconds + kGrace) * 1e9), std::move(what));
}

void disarmWatchdog() {
  if (!g_final) g_deadline_ns = 0;
}

void armFinalWatchdog(double seconds, std::string what) {
  if (g_final.exchange(true)) return;
  armWatchdogAt(nowNs() + static_cast<int64_t>(seconds * 1e9), std::move(what));
}

}  // namespace fc::exec::multirank
