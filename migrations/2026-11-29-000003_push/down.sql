DROP TABLE push_subscriptions;
