// A stand-in extension for pi and oh-my-pi, written into a scenario's sandbox by the e2e suite
// (tests/tests/e2e/agent/pi.rs). No npm dependencies: node built-ins only, so that it loads
// unchanged under pi (jiti on node) and oh-my-pi (bun).
//
// It logs every event it subscribes to as one JSON line in $E2E_PROBE_LOG:
//   {"probe", "seq", "ms", "event", "keys", "payload", "dropped", "ctx"}
// where `payload` is the event without what JSON cannot carry (functions, an AbortSignal,
// cycles), `dropped` names what was left out and `keys` is every own key of the event (keys
// whose value is undefined included). What a handler does comes from the scenario file
// $E2E_PROBE_SCENARIO: {"events": [names], "on": {name: body}, "commands": {name: {"description",
// "body"}}, "init": body}, each body the text of an async function of (event | args, ctx, pi,
// probe) whose return value is the handler's result; the result (or the error) is logged too.

import * as fs from "node:fs";
import { spawn } from "node:child_process";

type Json = unknown;

// Which copy this is (the suite writes one per place it loads extensions from).
const PROBE_NAME = "__PROBE_NAME__";
const logPath = process.env.E2E_PROBE_LOG ?? "";
const scenarioPath = process.env.E2E_PROBE_SCENARIO ?? "";
const started = Date.now();
let seq = 0;

function write(line: Record<string, Json>): void {
  if (!logPath) return;
  fs.appendFileSync(logPath, JSON.stringify({ probe: PROBE_NAME, seq: seq++, ms: Date.now() - started, ...line }) + "\n");
}

/** `value` as JSON data, and the paths of what was left out. */
function clean(value: unknown): { value: Json; dropped: string[] } {
  const dropped: string[] = [];
  const seen = new WeakSet<object>();
  const walk = (v: unknown, path: string): Json => {
    if (v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean") return v;
    if (v === undefined) return undefined;
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "function" || typeof v === "symbol") {
      dropped.push(`${path}: ${typeof v}`);
      return undefined;
    }
    if (typeof AbortSignal !== "undefined" && v instanceof AbortSignal) {
      dropped.push(`${path}: AbortSignal`);
      return undefined;
    }
    const o = v as object;
    if (seen.has(o)) {
      dropped.push(`${path}: cycle`);
      return undefined;
    }
    seen.add(o);
    // `seen` holds the objects on the current path only: a value shared by two branches is
    // written twice (as JSON.stringify does), a real cycle is left out.
    let out: Json;
    if (Array.isArray(o)) out = o.map((x, i) => walk(x, `${path}[${i}]`) ?? null);
    else if (o instanceof Map) out = walk(Object.fromEntries(o), path);
    else if (o instanceof Set) out = walk([...o], path);
    else if (o instanceof Date) out = o.toISOString();
    else {
      const fields: Record<string, Json> = {};
      for (const [k, x] of Object.entries(o)) {
        const w = walk(x, `${path}.${k}`);
        if (w !== undefined) fields[k] = w;
      }
      out = fields;
    }
    seen.delete(o);
    return out;
  };
  return { value: walk(value, "$"), dropped };
}

function ctxSummary(ctx: any): Record<string, Json> {
  const out: Record<string, Json> = {};
  if (!ctx) return out;
  const take = (k: string, f: () => Json) => {
    try {
      out[k] = f();
    } catch (e) {
      out[k] = `threw: ${(e as Error).message}`;
    }
  };
  take("hasUI", () => ctx.hasUI);
  take("cwd", () => ctx.cwd);
  take("sessionFile", () => ctx.sessionManager?.getSessionFile?.() ?? null);
  take("sessionId", () => ctx.sessionManager?.getSessionId?.() ?? null);
  take("idle", () => (typeof ctx.isIdle === "function" ? ctx.isIdle() : null));
  take("signal", () => (ctx.signal === undefined ? "undefined" : ctx.signal?.aborted ? "aborted" : "live"));
  take("keys", () => Object.keys(ctx).sort());
  return out;
}

// One child process per extension instance, answering JSON lines on its stdout.
let child: ReturnType<typeof spawn> | undefined;
let buffered = "";
const waiters: Array<(line: string) => void> = [];

const probe = {
  log: (what: string, data?: unknown) => write({ event: "probe", what, data: clean(data).value }),
  clean: (v: unknown) => clean(v).value,
  sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
  /** Starts `command args` with piped stdin/stdout (stderr inherited); returns its pid. With
   *  `unref`, neither the child nor its pipes keep the agent's event loop alive. */
  spawnChild(command: string, args: string[], options: Record<string, unknown> = {}): number | undefined {
    const { unref, ...spawnOptions } = options;
    child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"], ...spawnOptions });
    if (unref) {
      child.unref();
      (child.stdin as any)?.unref?.();
      (child.stdout as any)?.unref?.();
    }
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        waiters.shift()?.(line);
      }
    });
    child.on("exit", (code, signal) => write({ event: "probe", what: "child exit", data: { code, signal } }));
    return child.pid;
  },
  /** Sends `message` as one JSON line to the child; resolves with its answer line, parsed. */
  ask(message: unknown): Promise<Json> {
    if (!child) throw new Error("no child process");
    return new Promise((resolve) => {
      waiters.push((line) => resolve(JSON.parse(line)));
      child!.stdin!.write(JSON.stringify(message) + "\n");
    });
  },
  child: () => child,
};

type Body = (a: unknown, ctx: unknown, pi: unknown, probe: unknown) => Promise<unknown>;

function compile(body: string): Body {
  // eslint-disable-next-line no-new-func
  return new Function("event", "ctx", "pi", "probe", `return (async () => {\n${body}\n})();`) as Body;
}

export default function (pi: any) {
  const scenario = scenarioPath ? JSON.parse(fs.readFileSync(scenarioPath, "utf8")) : {};
  write({ event: "probe", what: "loaded", data: { runtime: typeof (globalThis as any).Bun === "undefined" ? "node" : "bun", pid: process.pid, epochMs: started, apiKeys: Object.keys(pi).sort() } });
  const handlers: Record<string, Body> = {};
  for (const [name, body] of Object.entries(scenario.on ?? {})) handlers[name] = compile(body as string);
  for (const name of scenario.events ?? []) {
    pi.on(name, async (event: any, ctx: any) => {
      const { value, dropped } = clean(event);
      write({ event: name, keys: event && typeof event === "object" ? Object.keys(event) : [], payload: value, dropped, ctx: ctxSummary(ctx) });
      const handler = handlers[name];
      if (!handler) return undefined;
      try {
        const result = await handler(event, ctx, pi, probe);
        write({ event: name, phase: "returned", result: clean(result).value ?? null });
        return result;
      } catch (e) {
        write({ event: name, phase: "threw", error: String((e as Error)?.message ?? e) });
        throw e;
      }
    });
  }
  for (const [name, spec] of Object.entries<any>(scenario.commands ?? {})) {
    const body = compile(spec.body);
    pi.registerCommand(name, {
      description: spec.description,
      handler: async (args: string, ctx: any) => {
        write({ event: "command", name, args, ctx: ctxSummary(ctx) });
        try {
          const result = await body(args, ctx, pi, probe);
          write({ event: "command", name, phase: "returned", result: clean(result).value ?? null });
        } catch (e) {
          write({ event: "command", name, phase: "threw", error: String((e as Error)?.message ?? e) });
          throw e;
        }
      },
    });
  }
  if (scenario.init) {
    return compile(scenario.init)(undefined, undefined, pi, probe);
  }
}
