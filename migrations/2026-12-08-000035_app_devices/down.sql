DROP TABLE app_devices;
