/** An event type, `<resource>.<what happened>`: one that a module registered (event-resource.ts). */
export type EventType = string;
