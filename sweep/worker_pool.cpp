#include "sweep/worker_pool.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "sim/text_file.h"

namespace loom {

namespace {

// A worker evaluates point after point, and each point plans its layers' folds in blocks of
// up to tens of MB (small arrays have many folds), then frees them. By default glibc maps
// such blocks afresh and hands freed heap back to the kernel, so every point faults all of
// its memory in again; on the development VM perf put 30% of a 1,000-point analytic sweep
// in page faults, and keeping the memory cut its wall time by about 60% (docs/performance.md,
// "Sweeps"). Blocks up to 16 MiB now come from the heap, and up to 64 MiB of freed heap
// stays with the worker for the next point.
void keep_freed_memory() {
#ifdef __GLIBC__
  ::mallopt(M_MMAP_THRESHOLD, 16 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

// The worker's whole life: requests in, replies out, until the parent closes the pipe.
[[noreturn]] void worker_main(int in, int out, const WorkerPool::Task& task) {
  // Ctrl-C reaches the whole process group and a batch system's SIGTERM every process of
  // the job: both are the parent's to handle (it keeps what finished, then stops the
  // workers). A worker that died of them would be reported as a failed point and kept.
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGTERM, SIG_IGN);
  keep_freed_memory();
  std::string buffer;
  char chunk[4096];
  for (;;) {
    const size_t newline = buffer.find('\n');
    if (newline != std::string::npos) {
      const std::string request = buffer.substr(0, newline);
      buffer.erase(0, newline + 1);
      if (!write_all(out, task(request) + "\n")) ::_exit(1);
      continue;
    }
    const ssize_t n = ::read(in, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(0);  // parent closed the pipe: done (skip static destructors)
    buffer.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace

WorkerPool::WorkerPool(int workers, Task task) : task_(std::move(task)), workers_(static_cast<size_t>(workers)) {
  ::signal(SIGPIPE, SIG_IGN);  // a dead worker's pipe is reported by write(), not a signal
  for (Worker& w : workers_) spawn(w);
}

WorkerPool::~WorkerPool() {
  for (Worker& w : workers_) {
    if (w.pid > 0) ::kill(w.pid, SIGKILL);
    reap(w, nullptr);
  }
}

void WorkerPool::spawn(Worker& w) {
  int down[2], up[2];
  if (::pipe(down) != 0 || ::pipe(up) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::fflush(nullptr);  // no buffered output duplicated into the child
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(down[1]);
    ::close(up[0]);
    for (const Worker& other : workers_) {  // only the parent may hold the other workers' pipes
      if (other.to_worker >= 0) ::close(other.to_worker);
      if (other.from_worker >= 0) ::close(other.from_worker);
    }
    worker_main(down[0], up[1], task_);
  }
  ::close(down[0]);
  ::close(up[1]);
  w.pid = pid;
  w.to_worker = down[1];
  w.from_worker = up[0];
  w.buffer.clear();
  w.busy = -1;
}

void WorkerPool::reap(Worker& w, std::string* how) {
  if (w.to_worker >= 0) ::close(w.to_worker);
  if (w.from_worker >= 0) ::close(w.from_worker);
  w.to_worker = w.from_worker = -1;
  if (w.pid <= 0) return;
  int status = 0;
  while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (how != nullptr) {
    *how = WIFSIGNALED(status) ? "the worker process died of signal " + std::to_string(WTERMSIG(status)) + " (" +
                                     strsignal(WTERMSIG(status)) + ")"
                               : "the worker process exited with status " + std::to_string(WEXITSTATUS(status));
  }
  w.pid = -1;
}

bool WorkerPool::run(const std::vector<std::string>& requests, const OnReply& on_reply, const std::atomic<bool>& stop,
                     const std::function<void()>& tick) {
  size_t next = 0, finished = 0;
  auto dispatch = [&](Worker& w) {
    while (next < requests.size() && w.busy < 0) {
      const size_t position = next++;
      if (write_all(w.to_worker, requests[position] + "\n")) {
        w.busy = static_cast<long long>(position);
        return;
      }
      std::string how;  // the worker is gone: report its request failed, start another
      reap(w, &how);
      on_reply(position, how, false);
      ++finished;
      spawn(w);
    }
  };
  for (Worker& w : workers_) dispatch(w);
  std::vector<pollfd> fds(workers_.size());
  while (finished < requests.size()) {
    if (stop.load()) return false;
    for (size_t i = 0; i < workers_.size(); ++i) fds[i] = {workers_[i].from_worker, POLLIN, 0};
    const int ready = ::poll(fds.data(), fds.size(), 200);
    if (tick) tick();
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    for (size_t i = 0; i < workers_.size(); ++i) {
      Worker& w = workers_[i];
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      char chunk[65536];
      const ssize_t n = ::read(w.from_worker, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (stop.load()) return false;  // stopping anyway: its point is computed on resume
        std::string how;
        const long long lost = w.busy;
        reap(w, &how);
        if (lost >= 0) {
          on_reply(static_cast<size_t>(lost), how, false);
          ++finished;
        }
        spawn(w);
        dispatch(w);
        continue;
      }
      w.buffer.append(chunk, static_cast<size_t>(n));
      size_t newline;
      while ((newline = w.buffer.find('\n')) != std::string::npos) {
        const std::string reply = w.buffer.substr(0, newline);
        w.buffer.erase(0, newline + 1);
        const size_t position = static_cast<size_t>(w.busy);
        w.busy = -1;
        on_reply(position, reply, true);
        ++finished;
        if (stop.load()) return false;
        dispatch(w);
      }
    }
  }
  return true;
}

}  // namespace loom
