CREATE TABLE `goals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`website_id` integer NOT NULL,
	`event_name` text,
	`page_path` text,
	`display_name` text NOT NULL,
	`currency` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`website_id`) REFERENCES `websites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `goals_display_name_unique` ON `goals` (`website_id`,`display_name`);--> statement-breakpoint
CREATE UNIQUE INDEX `goals_event_unique` ON `goals` (`website_id`,`event_name`);--> statement-breakpoint
CREATE UNIQUE INDEX `goals_page_unique` ON `goals` (`website_id`,`page_path`);