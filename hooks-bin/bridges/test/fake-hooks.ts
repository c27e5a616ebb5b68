#!/usr/bin/env node
// A stand-in for `hooks serve --stdio` (the bridge runs it as `HOOKS_BIN serve --stdio`): it
// speaks the protocol (PROTOCOL.md) as its plan says, and logs every line it reads.
//
// $FAKE_HOOKS_PLAN: a JSON `Plan`, read again at every message, so that a test changes what the
// server does between two events. $FAKE_HOOKS_LOG: a file it appends one JSON line to per start
// (`{"started": PID}`) and per message read.

import { appendFileSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";

/** What the server does with one request. */
export type Reaction =
  /** Answers `result`. */
  | { answer: unknown }
  /** Answers a JSON-RPC error. */
  | { error: string }
  /** Never answers. */
  | "hang"
  /** Writes a line that is not JSON. */
  | "garbage"
  /** Exits with status 3 instead of answering. */
  | "exit";

export interface Plan {
  /** Exit with status 3 at once. */
  exit?: boolean;
  /** Default: answers the bundle of `handled` and `commands`. */
  describe?: Reaction;
  /** Our events the bundle has a handler of. */
  handled?: string[];
  commands?: Array<{ name: string; description?: string }>;
  /** Per event; default: `{result: null, errors: []}`. */
  emit?: Record<string, Reaction>;
  /** Default: `{errors: []}`. */
  command?: Reaction;
}

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

const log = env("FAKE_HOOKS_LOG");

function plan(): Plan {
  return JSON.parse(readFileSync(env("FAKE_HOOKS_PLAN"), "utf8")) as Plan;
}

function note(entry: unknown): void {
  appendFileSync(log, `${JSON.stringify(entry)}\n`);
}

function send(message: unknown): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

note({ started: process.pid });
if (plan().exit) process.exit(3);

function defaultAnswer(method: string, p: Plan): Reaction {
  switch (method) {
    case "describe":
      return {
        answer: {
          protocol: 1,
          hooks: ["fake"],
          events: (p.handled ?? []).map((name) => ({ name, handlers: 1 })),
          commands: p.commands ?? [],
          renderers: [],
          loadErrors: [],
        },
      };
    case "command":
      return { answer: { errors: [] } };
    case "end":
      return { answer: { ended: true, errors: [] } };
    default:
      return { answer: { result: null, errors: [] } };
  }
}

createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line) as { id?: number; method?: string; params?: { event?: string } };
  note(message);
  if (message.id === undefined || message.method === undefined) return;
  const p = plan();
  const method = message.method;
  const planned =
    method === "describe" ? p.describe : method === "command" ? p.command : method === "emit" ? p.emit?.[message.params?.event ?? ""] : undefined;
  const reaction = planned ?? defaultAnswer(method, p);
  if (reaction === "hang") return;
  if (reaction === "garbage") process.stdout.write("this is not JSON\n");
  else if (reaction === "exit") process.exit(3);
  else if ("error" in reaction) send({ jsonrpc: "2.0", id: message.id, error: { code: -32000, message: reaction.error } });
  else send({ jsonrpc: "2.0", id: message.id, result: reaction.answer });
});
