DROP TABLE notifications, notification_settings;
