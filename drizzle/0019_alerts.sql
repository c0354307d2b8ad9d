CREATE TABLE `alerts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`website_id` integer NOT NULL,
	`kind` text NOT NULL,
	`email` text NOT NULL,
	`threshold` integer NOT NULL,
	`hours` integer NOT NULL,
	`every_hours` integer NOT NULL,
	`confirmed_at` integer,
	`created_by` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`website_id`) REFERENCES `websites`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `owners`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alerts_recipient_unique` ON `alerts` (`website_id`,`kind`,`email`);