CREATE TABLE `__new_log_positions` (
	`website_id` integer NOT NULL,
	`partition` integer DEFAULT 0 NOT NULL,
	`position` integer NOT NULL,
	`first_date` text,
	`last_date` text,
	`events` integer DEFAULT 0 NOT NULL,
	`bytes` integer DEFAULT 0 NOT NULL,
	`closed` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`website_id`, `partition`)
);
--> statement-breakpoint
INSERT INTO `__new_log_positions`("website_id", "partition", "position") SELECT "website_id", 0, "position" FROM `log_positions`;--> statement-breakpoint
DROP TABLE `log_positions`;--> statement-breakpoint
ALTER TABLE `__new_log_positions` RENAME TO `log_positions`;
