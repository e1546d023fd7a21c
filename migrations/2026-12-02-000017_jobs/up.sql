-- Issue #31: one-off work (a computer opponent's move, a tournament round),
-- written in the transaction that makes it due and claimed by any
-- instance with FOR UPDATE SKIP LOCKED under a lease (`src/job_queue.rs`).
-- `key` makes a job once: a second enqueue of the same key is ignored.
CREATE TABLE jobs (
    id BIGSERIAL PRIMARY KEY,
    kind TEXT NOT NULL,
    key TEXT NOT NULL UNIQUE,
    payload JSONB NOT NULL,
    run_at TIMESTAMPTZ NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    leased_until TIMESTAMPTZ,
    last_error TEXT,
    done_at TIMESTAMPTZ,
    failed_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL
);
-- What is due: neither done nor failed, by time.
CREATE INDEX jobs_due ON jobs (run_at) WHERE done_at IS NULL AND failed_at IS NULL;
