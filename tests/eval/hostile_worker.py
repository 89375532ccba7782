#!/usr/bin/python3
# A hostile "worker" started through the real WorkerProcess (as its executable): on its first
# request it tries what a malicious candidate would - write into kforge's source and build
# folders and the task's folder, read API keys from its environment and from
# /proc/<kforge>/environ, see other processes, leave the cgroup, remount the filesystem
# writable, leave a setsid daemon running and fork a bomb - and reports what worked.
import json
import os
import sys
import time


def attempt(action):
    try:
        return "ok: " + str(action())
    except Exception as e:  # noqa: BLE001 - every failure is the answer
        return "failed: " + type(e).__name__ + ": " + str(e)


def write_into(folder, name):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write("owned")
    return path


def leave_cgroup():
    with open("/sys/fs/cgroup/pids/cgroup.procs", "w") as f:
        f.write(str(os.getpid()))
    return "moved to the root cgroup"


def daemon(marker):
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(1000)", marker])
        os._exit(0)
    os.waitpid(pid, 0)
    return "started"


def fork_bomb(tries):
    children = 0
    try:
        for _ in range(tries):
            if os.fork() == 0:
                time.sleep(1000)
                os._exit(0)
            children += 1
    except OSError as e:
        return f"{children} children, then {e}"
    return f"{children} children"


def main():
    print(json.dumps({"ok": True, "ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("op") == "exit":
            return 0
        name = request["file_name"]
        report = {"ok": True}
        report["writes"] = {folder: attempt(lambda f=folder: write_into(f, name)) for folder in request["folders"]}
        report["own_folder"] = attempt(lambda: write_into(os.getcwd(), name))
        report["env_keys"] = sorted(k for k in os.environ if "KEY" in k or "TOKEN" in k or "SECRET" in k)
        report["env_has_secret"] = any(request["secret"] in v for v in os.environ.values())
        report["parent_environ"] = attempt(
            lambda: request["secret"] in open(f"/proc/{request['parent_pid']}/environ", "rb").read().decode(
                errors="replace"))
        report["visible_pids"] = len([p for p in os.listdir("/proc") if p.isdigit()])
        report["leave_cgroup"] = attempt(lambda: leave_cgroup())
        report["remount"] = os.system("mount -o remount,rw / 2>/dev/null")
        report["daemon"] = attempt(lambda: daemon(request["marker"]))
        report["fork_bomb"] = fork_bomb(request["bomb"])
        print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
