/** A question to the Stats API v2 that cannot be answered as asked: a 400 with its message. */
export class QueryError extends Error {}
