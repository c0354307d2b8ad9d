/**
 * A tool that starts workerd (wrangler's platform proxy) runs in a process group of its own,
 * watched by the process the user started: however the tool ends — done, failed, interrupted,
 * killed, out of memory — the watcher then ends the group, workerd with it. (A process that
 * runs out of heap or is killed runs no handler of its own: only another process can clean
 * up after it.) And should the watcher itself be killed, the tool sees its pipe close and
 * ends its own group.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { constants } from 'node:os';

/** Set in the tool's environment to the watcher's process id. */
const WATCHED_BY = 'SIGHTLINE_WATCHED_BY';

/** Signals that stop the tool: the watcher passes them on to it, and it stops workerd. */
const STOPPING = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Sends a signal to every process of a group (none left is no error). */
function signalGroup(leader: number, signal: NodeJS.Signals) {
  try {
    process.kill(-leader, signal);
  } catch {
    // The group has ended.
  }
}

/**
 * Runs the rest of this script in a process group of its own. In the process the user
 * started, it starts the script again (with the same arguments and Node options) as that
 * group's leader, waits for it, ends what is left of the group, and exits as the script did
 * (never returning); in the group, it returns.
 */
export async function inOwnProcessGroup(): Promise<void> {
  // Windows has no process groups to signal (workerd there is left to wrangler's own hooks).
  if (process.platform === 'win32') return;
  if (process.env[WATCHED_BY] === String(process.ppid)) {
    // The watcher holds the other end of stdin: its end closing means it is gone.
    const watcher = process.stdin as Socket;
    watcher.on('end', () => signalGroup(process.pid, 'SIGKILL'));
    watcher.resume();
    watcher.unref();
    return;
  }
  const tool = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    detached: true,
    stdio: ['pipe', 'inherit', 'inherit'],
    env: { ...process.env, [WATCHED_BY]: String(process.pid) },
  });
  const leader = tool.pid as number;
  let stopped: NodeJS.Signals | null = null;
  for (const signal of STOPPING)
    process.on(signal, () => {
      stopped = signal;
      try {
        process.kill(leader, signal);
      } catch {
        // The tool has ended.
      }
      // A tool that lingers is killed, with its group.
      setTimeout(() => signalGroup(leader, 'SIGKILL'), 5_000).unref();
    });
  const [code, signal] = (await once(tool, 'exit')) as [number | null, NodeJS.Signals | null];
  signalGroup(leader, 'SIGKILL');
  if (signal && !stopped)
    process.stderr.write(
      `error: stopped by ${signal}${signal === 'SIGABRT' ? ' (out of memory?)' : ''}\n`,
    );
  // Stopped by a signal, it exits as the signal says (130 for SIGINT), whatever the tool said.
  const by = stopped ?? signal;
  process.exit(by ? 128 + constants.signals[by] : (code ?? 1));
}
