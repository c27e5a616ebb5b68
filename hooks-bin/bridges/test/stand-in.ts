// A stand-in for the extension API of pi and oh-my-pi (the interfaces the bridge declares): it
// records what the bridge subscribes to, registers, sends and appends, and delivers events to
// its handlers as the agents do.

import type {
  AgentEvent,
  EventHandler,
  ExtensionAPI,
  ExtensionCommandContext,
  ExtensionUI,
  HandlerResult,
} from "../pi/hooks.js";

type Command = Parameters<ExtensionAPI["registerCommand"]>[1];

export class StandInApi implements ExtensionAPI {
  readonly handlers = new Map<string, EventHandler[]>();
  readonly commands = new Map<string, Command>();
  readonly sent: unknown[] = [];
  readonly entries: unknown[] = [];

  on(event: string, handler: EventHandler): void {
    const list = this.handlers.get(event) ?? [];
    list.push(handler);
    this.handlers.set(event, list);
  }

  registerCommand(name: string, options: Command): void {
    this.commands.set(name, options);
  }

  sendMessage(message: unknown, options?: unknown): void {
    this.sent.push({ message, options });
  }

  appendEntry(customType: string, data?: unknown): void {
    this.entries.push({ customType, data });
  }

  /** The events subscribed to, sorted. */
  subscribed(): string[] {
    return [...this.handlers.keys()].sort();
  }

  /** Delivers the agent's event `name` (`type` is added) to its handlers, in order: the last
   * result (one extension: its handler's). */
  async deliver(name: string, fields: Record<string, unknown>, ctx: StandInContext): Promise<HandlerResult> {
    const event: AgentEvent = { type: name, ...fields };
    let result: HandlerResult;
    for (const handler of this.handlers.get(name) ?? []) result = (await handler(event, ctx)) ?? result;
    return result;
  }

  /** Runs the registered command `name` as the agent does when it is typed. */
  async run(name: string, args: string, ctx: StandInContext): Promise<void> {
    const command = this.commands.get(name);
    if (!command) throw new Error(`no command /${name}`);
    await command.handler(args, ctx);
  }
}

/** A handler's (and a command's) context, with no UI: what the bridge did to it is recorded. */
export class StandInContext implements ExtensionCommandContext {
  /** How many times the run was aborted. */
  aborted = 0;
  readonly notes: Array<[string, string | undefined]> = [];
  readonly hasUI: boolean;
  readonly cwd = process.cwd();
  readonly model = { provider: "stand-in", id: "model" };
  readonly sessionManager = {
    getSessionFile: (): string | undefined => undefined,
    getSessionId: (): string => "stand-in-session",
    getLeafId: (): string | null => null,
  };
  readonly ui: ExtensionUI;

  constructor(hasUI = false) {
    this.hasUI = hasUI;
    this.ui = {
      select: async () => undefined,
      confirm: async () => false,
      input: async () => undefined,
      editor: async () => undefined,
      notify: (message, kind) => {
        this.notes.push([message, kind]);
      },
      setStatus: () => {},
      setEditorText: () => {},
    };
  }

  isIdle(): boolean {
    return true;
  }

  abort(): void {
    this.aborted++;
  }

  hasPendingMessages(): boolean {
    return false;
  }

  async waitForIdle(): Promise<void> {}

  async newSession(): Promise<{ cancelled: boolean }> {
    return { cancelled: false };
  }

  async navigateTree(): Promise<{ cancelled: boolean }> {
    return { cancelled: false };
  }
}
