-- Issue #32 (review): the one-off runner looks every second for computer
-- moves that failed every attempt (`computer::revive`) and removes done
-- jobs a month old (`job_queue::purge_done`); each reads only its own
-- rows, not the whole table.
CREATE INDEX jobs_failed ON jobs (failed_at) WHERE failed_at IS NOT NULL;
CREATE INDEX jobs_done ON jobs (done_at) WHERE done_at IS NOT NULL;
