DROP INDEX jobs_done;
DROP INDEX jobs_failed;
