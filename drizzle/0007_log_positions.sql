CREATE TABLE `log_positions` (
	`website_id` integer PRIMARY KEY NOT NULL,
	`position` integer NOT NULL
);
