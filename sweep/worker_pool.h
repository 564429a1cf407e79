// Worker processes for sweeps. SystemC allows one simulation context per process, so
// cycle-level points cannot share a process; and a point that crashes must not take the
// sweep down. The pool forks N workers once (each keeps its SystemC context and loaded
// inputs for all its points), hands each a one-line request at a time over a pipe, and
// collects one-line replies as they come. A worker that dies is replaced and its point
// reported as failed (unless the pool is stopping: then the point is just not run).
// Workers ignore SIGINT and SIGTERM, which are the parent's to handle. The parent process
// itself never runs a simulation.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace loom {

class WorkerPool {
 public:
  // Runs in each worker: one request line in, one reply line out (no newlines).
  using Task = std::function<std::string(const std::string& request)>;
  // Called in the parent as each request finishes: its position in `requests`, the reply,
  // and ok = false when the worker died (the reply then says how).
  using OnReply = std::function<void(size_t position, const std::string& reply, bool ok)>;

  WorkerPool(int workers, Task task);
  ~WorkerPool();  // stops and reaps every worker
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs every request; returns false (with some requests not run) when `stop` was set.
  // `tick` is called about five times a second (progress display).
  bool run(const std::vector<std::string>& requests, const OnReply& on_reply, const std::atomic<bool>& stop,
           const std::function<void()>& tick);

 private:
  struct Worker {
    pid_t pid = -1;
    int to_worker = -1, from_worker = -1;
    std::string buffer;     // reply bytes received so far
    long long busy = -1;    // position of the request in flight, -1 when idle
  };
  void spawn(Worker& w);
  void reap(Worker& w, std::string* how);

  Task task_;
  std::vector<Worker> workers_;
};

}  // namespace loom
