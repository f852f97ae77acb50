-- One database per app (run once, when the volume is first initialised).
CREATE DATABASE authorization_server;
CREATE DATABASE protected_server;
CREATE DATABASE proxy;
-- The second authorization server, playing the enterprise identity provider (MCP SEP-990).
CREATE DATABASE enterprise_idp;
