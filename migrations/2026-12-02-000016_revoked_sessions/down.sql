DROP INDEX refresh_tokens_revoked_at;
