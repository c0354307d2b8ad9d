ALTER TABLE `websites` ADD `exclude_datacenters` integer DEFAULT 1 NOT NULL;
