CREATE INDEX `report_sends_claimed_idx` ON `report_sends` (`claimed_at`);--> statement-breakpoint
CREATE INDEX `throttles_reset_idx` ON `throttles` (`reset_at`);--> statement-breakpoint
CREATE INDEX `visitors_website_seen_idx` ON `visitors` (`website_id`,`last_seen_at`);