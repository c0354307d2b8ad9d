CREATE TABLE `secrets` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `visitors` ADD `website_id` integer DEFAULT 0 NOT NULL;