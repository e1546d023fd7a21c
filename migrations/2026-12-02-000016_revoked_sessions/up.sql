-- Issue #30: every instance reads the sessions ended in the last minutes
-- (`src/revoked.rs`) every two seconds; this keeps that a range scan.
CREATE INDEX refresh_tokens_revoked_at ON refresh_tokens (revoked_at) WHERE revoked_at IS NOT NULL;
