"""Confinement of the runner process (python/kforge_runner.py), which imports and runs candidates.

The judge (kforge_session.py) starts every runner as a fresh interpreter with:
- a scrubbed environment (`runner_environment`): an allowlist of what torch, Triton and CUDA need,
  so API keys and tokens in kforge's environment never reach a candidate;
- its own session and process group, and the judge as child subreaper (`become_subreaper`), so
  every descendant a candidate leaves behind (even after setsid) is re-parented to the judge and
  killed by `kill_descendants` when the runner is stopped;
and the runner, before it imports torch or any candidate, restricts itself with Landlock
(`restrict_self`): files may be written only beneath its own folder and its shared-memory folder
(device nodes may be opened for writing), TCP is blocked, and processes outside it cannot be
ptraced, signalled or have their /proc/<pid>/mem or cwd read. Before that the runner enters
new PID and mount namespaces (`enter_namespaces`) with a /proc of its own: it sees no process
outside (Landlock alone still lets /proc/<pid>/environ be read on Linux 6.18), and when it dies
the kernel kills everything a candidate started.

This holds on its own; the worker-wide sandbox (src/eval/worker_process.cpp: read-only view,
PID namespace, environment scrub) adds to it. `report()` says which parts are active here.
"""

import ctypes
import os
import signal
import time

# ----------------------------------------------------------------------------------------------
# Environment.

_KEPT = {
    "PATH", "LANG", "LC_ALL", "LC_CTYPE", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", "TRITON_INTERPRET",
    "TRITON_PTXAS_PATH", "TRITON_LIBCUDA_PATH", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "TORCH_CUDA_ARCH_LIST",
}


def runner_environment(folder):
    """Only what the runtime needs; every cache a candidate could poison for later ones (Triton,
    Inductor, CUDA, kforge_cuda) lives in the runner's own folder and dies with it."""
    env = {k: v for k, v in os.environ.items() if k in _KEPT}
    for name in ("HOME", "TMPDIR", "TRITON_CACHE_DIR", "TORCHINDUCTOR_CACHE_DIR", "CUDA_CACHE_PATH",
                 "KFORGE_CACHE_DIR"):
        env[name] = folder
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONNOUSERSITE"] = "1"
    return env


# ----------------------------------------------------------------------------------------------
# Descendants.

_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_DUMPABLE = 4
_libc = ctypes.CDLL(None, use_errno=True)


def become_subreaper():
    """Orphans below the judge (a candidate's double-forked, setsid'd daemon) are re-parented to
    the judge instead of init, so it can find and kill them. Also makes the judge non-dumpable,
    so other processes of the same user cannot read its memory through /proc."""
    ok = _libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    _libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    return ok


def _children(parent):
    found = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 1 and int(fields[1]) == parent:
            found.append(int(name))
    return found


def kill_descendants(keep=()):
    """SIGKILLs and reaps every child of this process not in `keep`, until none is left (each
    kill re-parents the victim's children to us). Returns how many were killed."""
    me = os.getpid()
    killed = 0
    for _ in range(200):
        victims = [pid for pid in _children(me) if pid not in keep]
        if not victims:
            break
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in victims:
            try:
                os.waitpid(pid, 0)
                killed += 1
            except ChildProcessError:
                pass
        time.sleep(0.001)
    return killed


# ----------------------------------------------------------------------------------------------
# Namespaces: the runner as init of its own PID namespace, with its own /proc.

_CLONE_NEWNS, _CLONE_NEWPID, _CLONE_NEWUSER = 0x00020000, 0x20000000, 0x10000000
_MS_REC, _MS_PRIVATE = 1 << 14, 1 << 18
_PR_SET_PDEATHSIG = 1


def _unshare():
    """New mount and PID namespaces (with a user namespace mapping our own ids when we lack the
    privilege for them alone). Returns "" or why not."""
    if _libc.unshare(_CLONE_NEWNS | _CLONE_NEWPID) == 0:
        return ""
    uid, gid = os.getuid(), os.getgid()
    if _libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWPID) != 0:
        return os.strerror(ctypes.get_errno())
    try:
        for path, text in (("/proc/self/setgroups", "deny"), ("/proc/self/uid_map", f"{uid} {uid} 1"),
                           ("/proc/self/gid_map", f"{gid} {gid} 1")):
            with open(path, "w") as f:
                f.write(text)
    except OSError as e:
        return f"user namespace id map: {e.strerror}"
    return ""


def enter_namespaces():
    """Makes the calling process a stub that waits, and returns in its child: PID 1 of a new PID
    namespace with a /proc of its own. When that child dies, the kernel kills every process a
    candidate started (daemons included), and /proc shows no process outside the namespace (no
    /proc/<kforge>/environ). Returns (True, "") in the child, or (False, reason) unchanged."""
    why = _unshare()
    if why:
        return False, f"no PID namespace ({why})"
    child = os.fork()
    if child:
        signal.signal(signal.SIGTERM, lambda *_: os.kill(child, signal.SIGKILL))
        _, status = os.waitpid(child, 0)
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # dies with the stub
    if _libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) != 0 or \
            _libc.mount(b"proc", b"/proc", b"proc", 0, None) != 0:
        return True, f"PID namespace, but /proc not remounted ({os.strerror(ctypes.get_errno())})"
    return True, ""


def namespaces_available():
    """Whether enter_namespaces() can hide /proc here (tried in a throwaway child)."""
    pid = os.fork()
    if pid == 0:
        try:
            inside, why = enter_namespaces()
            os._exit(0 if inside and not why else 1)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


# ----------------------------------------------------------------------------------------------
# Landlock, through its three system calls (x86_64 and aarch64 share the numbers).

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_PR_SET_NO_NEW_PRIVS = 38
_WRITE_FILE = 1 << 1
_TRUNCATE = 1 << 14
# Everything that changes the filesystem: write, remove, make (char, dir, reg, sock, fifo, block,
# sym), refer (ABI 2), truncate (ABI 3).
_FS_WRITES_BY_ABI = {1: 0x1FF2, 2: 0x3FF2, 3: 0x7FF2}
_NET_TCP = (1 << 0) | (1 << 1)  # bind, connect (ABI 4)
_SCOPES = (1 << 0) | (1 << 1)   # abstract unix sockets, signals (ABI 6)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi():
    """The kernel's Landlock ABI version, or 0 with the reason."""
    version = _libc.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if version < 0:
        return 0, os.strerror(ctypes.get_errno())
    return version, ""


def restrict_self(writable):
    """Confines this process and its future children: writes only beneath `writable` (device
    nodes may be opened for writing, for the GPU driver); on ABI 4+ no TCP; on ABI 6+ no signals
    or abstract sockets outside the domain. Returns (abi, "") or (0, reason) when unavailable."""
    abi, why = landlock_abi()
    if abi <= 0:
        return 0, f"Landlock unavailable: {why}"
    fs = _FS_WRITES_BY_ABI[min(abi, 3)]
    attr = _RulesetAttr(fs, _NET_TCP if abi >= 4 else 0, _SCOPES if abi >= 6 else 0)
    size = 8 if abi < 4 else (16 if abi < 6 else 24)
    ruleset = _libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        return 0, f"landlock_create_ruleset: {os.strerror(ctypes.get_errno())}"
    try:
        rules = [(path, fs) for path in writable] + [("/dev", _WRITE_FILE | (_TRUNCATE if abi >= 3 else 0))]
        for path, access in rules:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = _PathBeneath(access, fd)
                if _libc.syscall(_SYS_ADD_RULE, ruleset, ctypes.c_int(1), ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
                    return 0, f"landlock_add_rule {path}: {os.strerror(ctypes.get_errno())}"
            finally:
                os.close(fd)
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return 0, f"PR_SET_NO_NEW_PRIVS: {os.strerror(ctypes.get_errno())}"
        if _libc.syscall(_SYS_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) != 0:
            return 0, f"landlock_restrict_self: {os.strerror(ctypes.get_errno())}"
    finally:
        os.close(ruleset)
    return abi, ""


def inside_kforge_sandbox():
    """True when the worker-wide sandbox (src/eval/sandbox.cpp) already gives the worker and its
    runners a PID namespace, its own /proc and a read-only filesystem."""
    return os.environ.get("KFORGE_SANDBOXED") == "1"


def use_namespaces(cuda):
    """Runners get their own PID namespace only without CUDA: CUDA IPC between the judge and a
    runner in different PID namespaces is not known to work (not tried on a GPU yet), and on the
    GPU machine the worker-wide sandbox's namespace hides kforge instead. Inside that sandbox a
    nested namespace is neither needed nor workable (no capabilities: threads fail to start)."""
    return not cuda and not inside_kforge_sandbox()


def report(cuda=False):
    """What confines a runner on this machine, for `kforge_worker.py --isolation` and `info`."""
    abi, why = landlock_abi()
    namespaces = inside_kforge_sandbox() or (use_namespaces(cuda) and namespaces_available())
    reasons = []
    if cuda:  # kforge_runner.py: the CUDA driver does not initialise under Landlock here
        abi, why = 0, "off with CUDA; the worker-wide sandbox's read-only mounts confine the runner"
    if abi < 1:
        reasons.append(f"Landlock unavailable ({why}): a runner can write files outside its folder "
                       "unless the worker-wide sandbox confines it")
    if not namespaces and cuda:
        reasons.append("with CUDA the runner shares the judge's PID namespace (for CUDA IPC): it sees /proc of "
                       "kforge unless the worker-wide sandbox puts the worker in a namespace of its own")
    elif not namespaces:
        reasons.append("no PID/mount namespace: a runner sees /proc of kforge (its environ included)")
    return {
        "runner_process": True,          # candidates never run in the judge's process
        "environment_scrubbed": True,    # runner_environment's allowlist
        "descendants_killed": True,      # PID namespace, else child subreaper + kill_descendants
        "landlock_abi": abi,
        "filesystem_confined": abi >= 1,
        "pid_namespace": namespaces,
        "proc_of_others_hidden": namespaces,
        "reason": "; ".join(reasons),
    }
