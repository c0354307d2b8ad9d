CREATE TABLE `funnels` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`website_id` integer NOT NULL,
	`name` text NOT NULL,
	`steps` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`website_id`) REFERENCES `websites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `funnels_name_unique` ON `funnels` (`website_id`,`name`);