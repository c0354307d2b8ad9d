CREATE TABLE `annotations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`website_id` integer NOT NULL,
	`date` text NOT NULL,
	`end_date` text,
	`text` text NOT NULL,
	`created_by` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`website_id`) REFERENCES `websites`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `owners`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `annotations_website_date_idx` ON `annotations` (`website_id`,`date`);--> statement-breakpoint
CREATE TABLE `segments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`website_id` integer NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`filters` text NOT NULL,
	`owner_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`website_id`) REFERENCES `websites`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`owner_id`) REFERENCES `owners`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `segments_website_idx` ON `segments` (`website_id`,`type`);--> statement-breakpoint
CREATE INDEX `segments_owner_idx` ON `segments` (`owner_id`);--> statement-breakpoint
ALTER TABLE `shared_links` ADD `segment_id` integer REFERENCES segments(id) ON DELETE cascade;--> statement-breakpoint
CREATE INDEX `shared_links_segment_idx` ON `shared_links` (`segment_id`);