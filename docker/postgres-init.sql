-- One database per app (run once, when the volume is first initialised).
CREATE DATABASE authorization_server;
CREATE DATABASE protected_server;
CREATE DATABASE proxy;
