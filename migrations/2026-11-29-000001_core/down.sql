DROP TABLE idempotent_answers, invites, match_events, match_seats, matches, login_failures, refresh_tokens, users;
