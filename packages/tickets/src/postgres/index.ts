// PostgreSQL implementation of this pack's store: filled in by the PostgreSQL work.
export {};
